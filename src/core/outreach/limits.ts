/**
 * Limits on outreach text, defined once: the tools' input schemas, the engine's sends, the
 * workspace file and both network adapters read them from here.
 */

/** Longest message, in characters (code points): a sequence step, an agent reply, a direct message. */
export const MESSAGE_TEXT_MAX = 8000;
/** The longest email text an email step (and its draft) takes. */
export const EMAIL_TEXT_MAX = 20000;

/** Longest connection note LinkedIn accepts, in characters (Unipile: `message` maxLength 300). */
export const CONNECTION_NOTE_MAX = 300;
