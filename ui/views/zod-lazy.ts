/**
 * What a lazy `import('zod/v4')` gets inside a view (see lazyZodJsonSchemaOnly in
 * vite.config.ts): `z.toJSONSchema`, the one member such an import reads today. Any other
 * member fails loudly with the reason instead of being undefined.
 */
import { toJSONSchema } from 'zod/v4';

const present = { toJSONSchema };

export const z = new Proxy(present, {
  get(target, key, receiver) {
    if (typeof key === 'string' && !(key in target)) {
      throw new Error(`zod.${key} is not bundled in this view: a lazy import of zod carries only toJSONSchema (ui/views/vite.config.ts).`);
    }
    return Reflect.get(target, key, receiver);
  },
});

export { toJSONSchema };
export default z;
