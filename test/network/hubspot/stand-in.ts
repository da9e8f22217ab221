import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for the HubSpot CRM v3 API (and the v4 association read), speaking the
 * documented endpoints the HubSpot adapter calls, with the answer shapes HubSpot's reference shows:
 *
 * | Kind                 | Endpoint                                                    |
 * |----------------------|-------------------------------------------------------------|
 * | `contacts.list`      | GET  /crm/v3/objects/contacts                               |
 * | `contacts.search`    | POST /crm/v3/objects/contacts/search                        |
 * | `contacts.create`    | POST /crm/v3/objects/contacts                               |
 * | `contacts.update`    | PATCH /crm/v3/objects/contacts/{contactId}                  |
 * | `notes.create`       | POST /crm/v3/objects/notes                                  |
 * | `notes.batchRead`    | POST /crm/v3/objects/notes/batch/read                       |
 * | `deals.create`       | POST /crm/v3/objects/deals                                  |
 * | `deals.read`         | GET  /crm/v3/objects/deals/{dealId}[?idProperty=…]          |
 * | `associations.read`  | GET  /crm/v4/objects/{type}/{id}/associations/{toType}      |
 * | `properties.read`    | GET  /crm/v3/properties/{objectType}/{propertyName}         |
 * | `properties.create`  | POST /crm/v3/properties/{objectType}                        |
 *
 * It keeps its state in memory, checks the Bearer token, the properties written (a property that
 * does not exist is HubSpot's 400 PROPERTY_DOESNT_EXIST), unique values (email on contacts, any
 * `hasUniqueValue` property: 409), the association types in a create body, the pipeline and stage
 * of a deal, and the search limits (200 a page, 10,000 deep). Operator controls let a test move a
 * contact's lifecycle stage or tick do-not-contact, script faults (429 with Retry-After, 5xx, a
 * dropped connection), take the server down and bring it back on the same port, and count the
 * requests of each kind. Tests and bench/ import it; nothing leaves the machine.
 */

export type Kind =
  | 'contacts.list'
  | 'contacts.search'
  | 'contacts.create'
  | 'contacts.update'
  | 'notes.create'
  | 'notes.batchRead'
  | 'deals.create'
  | 'deals.read'
  | 'associations.read'
  | 'properties.read'
  | 'properties.create'
  | 'unknown';

export type ObjectType = 'contacts' | 'notes' | 'deals';

export interface StoredObject {
  id: string;
  properties: Record<string, string>;
  createdAt: number;
  updatedAt: number;
}

export interface PropertyDef {
  name: string;
  label: string;
  type: string;
  fieldType: string;
  groupName: string;
  description: string;
  hasUniqueValue: boolean;
  options: { label: string; value: string; displayOrder?: number; hidden?: boolean }[];
  custom: boolean;
}

export interface Fault {
  /** The request kind it hits; every kind when absent. */
  kind?: Kind;
  /** Answer this status (429, 500, 502, 503, 401, 400…) instead of serving. */
  status?: number;
  /** With a 429: the Retry-After header, in seconds. */
  retryAfter?: number;
  /** Drop the connection without an answer. */
  drop?: boolean;
  /** Serve the request (its write happens), then drop the connection before the answer: the create-then-crash window. */
  dropAfterServe?: boolean;
  /** The error message to answer with (a proxy that echoes the request, say). */
  message?: string;
  /** How many matching requests it hits (default 1). */
  times?: number;
}

export interface RecordedRequest {
  kind: Kind;
  method: string;
  path: string;
  status: number;
}

const DEFAULT_PROPERTIES: Record<ObjectType, string[]> = {
  contacts: [
    'email',
    'firstname',
    'lastname',
    'company',
    'jobtitle',
    'hs_linkedin_url',
    'lifecyclestage',
    'hs_email_optout',
    'createdate',
    'lastmodifieddate',
    'hs_object_id',
    'hubspot_owner_id',
  ],
  notes: ['hs_note_body', 'hs_timestamp', 'hubspot_owner_id', 'hs_createdate', 'hs_lastmodifieddate', 'hs_object_id'],
  deals: ['dealname', 'pipeline', 'dealstage', 'amount', 'closedate', 'hubspot_owner_id', 'createdate', 'hs_lastmodifieddate', 'hs_object_id', 'description'],
};

/** HubSpot's lifecycle stages (default contact property `lifecyclestage`, internal values). */
export const LIFECYCLE_STAGES = ['subscriber', 'lead', 'marketingqualifiedlead', 'salesqualifiedlead', 'opportunity', 'customer', 'evangelist', 'other'];

/** HubSpot-defined association types (v4): note→contact 202, deal→contact 3. */
const ASSOCIATION_TYPES: Record<string, number> = { 'notes:contacts': 202, 'deals:contacts': 3 };
const REVERSE_TYPES: Record<string, number> = { 'contacts:notes': 201, 'contacts:deals': 4 };

const SEARCH_PAGE_MAX = 200;
const SEARCH_DEPTH_MAX = 10_000;

export class HubSpotStandIn {
  readonly token: string;
  readonly objects: Record<ObjectType, Map<string, StoredObject>> = { contacts: new Map(), notes: new Map(), deals: new Map() };
  readonly properties: Record<ObjectType, Map<string, PropertyDef>>;
  /** `fromType:fromId` → set of `toType:toId`, both directions kept, as HubSpot keeps them. */
  private readonly links = new Map<string, Set<string>>();
  /** Pipelines and their stages (HubSpot's default sales pipeline, and any a test adds). */
  readonly pipelines = new Map<string, string[]>([
    ['default', ['appointmentscheduled', 'qualifiedtobuy', 'presentationscheduled', 'decisionmakerboughtin', 'contractsent', 'closedwon', 'closedlost']],
  ]);
  readonly owners = new Set<string>(['101', '102']);
  readonly requests: RecordedRequest[] = [];
  private readonly counts = new Map<Kind, number>();
  private faults: (Fault & { left: number })[] = [];
  private nextId = 1001;
  private lastNow = 0;
  private frozenAt: number | null = null;
  private searchLagMs = 0;
  private server: Server | null = null;
  private port = 0;

  constructor(options: { token?: string } = {}) {
    this.token = options.token ?? 'pat-na1-standin-0000-1111-2222-333344445555';
    this.properties = { contacts: new Map(), notes: new Map(), deals: new Map() };
    for (const type of Object.keys(DEFAULT_PROPERTIES) as ObjectType[])
      for (const name of DEFAULT_PROPERTIES[type])
        this.properties[type].set(name, {
          name,
          label: name,
          type: name.includes('date') || name === 'hs_timestamp' ? 'datetime' : 'string',
          fieldType: 'text',
          groupName: `${type.slice(0, -1)}information`,
          description: '',
          hasUniqueValue: false,
          options: [],
          custom: false,
        });
  }

  /** The API root to give the adapter as `basePath`. */
  get url(): string {
    if (this.port === 0) throw new Error('the stand-in is not started');
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<string> {
    await this.listen(0);
    return this.url;
  }

  private listen(port: number): Promise<void> {
    const server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) this.send(res, 500, { status: 'error', message: String(error), category: 'INTERNAL_ERROR', correlationId: randomUUID() });
      });
    });
    server.keepAliveTimeout = 5_000;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        this.server = server;
        this.port = (server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  /** Goes down: stops listening and cuts every open connection (state is kept). */
  async goDown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }

  /** Comes back on the same port, with the state it had. */
  async comeBack(): Promise<void> {
    if (this.server) return;
    await this.listen(this.port);
  }

  get isUp(): boolean {
    return this.server !== null;
  }

  async stop(): Promise<void> {
    await this.goDown();
  }

  /** Scripts faults, served in order to the requests they match. */
  fail(fault: Fault): void {
    this.faults.push({ ...fault, left: fault.times ?? 1 });
  }

  clearFaults(): void {
    this.faults = [];
  }

  /** How many requests of a kind arrived (all kinds when absent), faults and refusals included. */
  count(kind?: Kind): number {
    if (kind === undefined) return [...this.counts.values()].reduce((a, b) => a + b, 0);
    return this.counts.get(kind) ?? 0;
  }

  resetCounts(): void {
    this.counts.clear();
    this.requests.length = 0;
  }

  /** Freezes the stand-in's clock (ms) so that several writes share one modification time; null thaws it. */
  freezeClock(at: number | null): void {
    this.frozenAt = at;
  }

  /**
   * HubSpot's search reads an index that lags writes by a few seconds: with a lag set, a contact
   * created or changed less than `ms` ago is not found by search (it is by id and by association).
   */
  setSearchLag(ms: number): void {
    this.searchLagMs = ms;
  }

  private now(): number {
    if (this.frozenAt !== null) {
      this.lastNow = Math.max(this.lastNow, this.frozenAt);
      return this.frozenAt;
    }
    // Strictly increasing, as a log of modifications reads best in tests.
    this.lastNow = Math.max(Date.now(), this.lastNow + 1);
    return this.lastNow;
  }

  // ---- operator controls -------------------------------------------------------------------

  /** Adds a contact as a person would in HubSpot's UI. */
  addContact(properties: Record<string, string>): StoredObject {
    return this.insert('contacts', properties);
  }

  /** Adds a note associated with a contact, as a person would log one in HubSpot. */
  addNote(contactId: string, body: string, at = this.now()): StoredObject {
    if (!this.objects.contacts.has(contactId)) throw new Error(`no contact ${contactId}`);
    const note = this.insert('notes', { hs_note_body: body, hs_timestamp: new Date(at).toISOString() });
    this.link('notes', note.id, 'contacts', contactId);
    return note;
  }

  /** Moves a contact's lifecycle stage (HubSpot's internal value: `opportunity`, `customer`…). */
  setLifecycleStage(contactId: string, stage: string): void {
    if (!LIFECYCLE_STAGES.includes(stage)) throw new Error(`not a HubSpot lifecycle stage: ${stage}`);
    this.modify('contacts', contactId, { lifecyclestage: stage });
  }

  /** Ticks or clears the do-not-contact property (created by the adapter, or here when a test runs first). */
  setDoNotContact(contactId: string, value: boolean, property = 'outreach_do_not_contact'): void {
    if (!this.properties.contacts.has(property))
      this.properties.contacts.set(property, {
        name: property,
        label: 'Do not contact',
        type: 'bool',
        fieldType: 'booleancheckbox',
        groupName: 'contactinformation',
        description: '',
        hasUniqueValue: false,
        options: [],
        custom: true,
      });
    this.modify('contacts', contactId, { [property]: value ? 'true' : 'false' });
  }

  contact(id: string): StoredObject | undefined {
    return this.objects.contacts.get(id);
  }

  contactByEmail(email: string): StoredObject | undefined {
    return [...this.objects.contacts.values()].find((c) => c.properties.email?.toLowerCase() === email.toLowerCase());
  }

  /** The objects of a type associated with a contact. */
  associated(contactId: string, toType: 'notes' | 'deals'): StoredObject[] {
    const ids = [...(this.links.get(`contacts:${contactId}`) ?? [])].filter((l) => l.startsWith(`${toType}:`)).map((l) => l.slice(toType.length + 1));
    return ids.map((id) => this.objects[toType].get(id)).filter((o): o is StoredObject => o !== undefined);
  }

  // ---- state ---------------------------------------------------------------------------------

  private insert(type: ObjectType, properties: Record<string, string>): StoredObject {
    const id = String(this.nextId++);
    const at = this.now();
    const iso = new Date(at).toISOString();
    const props: Record<string, string> = { ...properties, hs_object_id: id };
    if (type === 'contacts') {
      props.createdate = iso;
      props.lastmodifieddate = iso;
    } else {
      props.hs_createdate = iso;
      props.hs_lastmodifieddate = iso;
      if (type === 'deals') props.createdate = iso;
    }
    const obj: StoredObject = { id, properties: props, createdAt: at, updatedAt: at };
    this.objects[type].set(id, obj);
    return obj;
  }

  private modify(type: ObjectType, id: string, properties: Record<string, string>): StoredObject {
    const obj = this.objects[type].get(id);
    if (!obj) throw new Error(`no ${type} ${id}`);
    const at = this.now();
    Object.assign(obj.properties, properties);
    obj.updatedAt = at;
    obj.properties[type === 'contacts' ? 'lastmodifieddate' : 'hs_lastmodifieddate'] = new Date(at).toISOString();
    return obj;
  }

  private link(fromType: ObjectType, fromId: string, toType: ObjectType, toId: string): void {
    const a = `${fromType}:${fromId}`;
    const b = `${toType}:${toId}`;
    if (!this.links.has(a)) this.links.set(a, new Set());
    if (!this.links.has(b)) this.links.set(b, new Set());
    this.links.get(a)?.add(b);
    this.links.get(b)?.add(a);
  }

  // ---- HTTP ----------------------------------------------------------------------------------

  private send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = body === undefined ? '' : JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json;charset=utf-8', 'x-hubspot-correlation-id': randomUUID(), ...headers });
    res.end(text);
  }

  private error(res: ServerResponse, status: number, category: string, message: string, extra: Record<string, unknown> = {}): void {
    this.send(res, status, { status: 'error', message, correlationId: randomUUID(), category, ...extra });
  }

  private kindOf(method: string, path: string): Kind {
    if (method === 'GET' && path === '/crm/v3/objects/contacts') return 'contacts.list';
    if (method === 'POST' && path === '/crm/v3/objects/contacts/search') return 'contacts.search';
    if (method === 'POST' && path === '/crm/v3/objects/contacts') return 'contacts.create';
    if (method === 'PATCH' && /^\/crm\/v3\/objects\/contacts\/[^/]+$/.test(path)) return 'contacts.update';
    if (method === 'POST' && path === '/crm/v3/objects/notes') return 'notes.create';
    if (method === 'POST' && path === '/crm/v3/objects/notes/batch/read') return 'notes.batchRead';
    if (method === 'POST' && path === '/crm/v3/objects/deals') return 'deals.create';
    if (method === 'GET' && /^\/crm\/v3\/objects\/deals\/[^/]+$/.test(path)) return 'deals.read';
    if (method === 'GET' && /^\/crm\/v4\/objects\/[^/]+\/[^/]+\/associations\/[^/]+$/.test(path)) return 'associations.read';
    if (method === 'GET' && /^\/crm\/v3\/properties\/[^/]+\/[^/]+$/.test(path)) return 'properties.read';
    if (method === 'POST' && /^\/crm\/v3\/properties\/[^/]+$/.test(path)) return 'properties.create';
    return 'unknown';
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const method = req.method ?? 'GET';
    const path = url.pathname;
    const kind = this.kindOf(method, path);
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    res.on('finish', () => this.requests.push({ kind, method, path, status: res.statusCode }));

    const fault = this.faults.find((f) => f.left > 0 && (f.kind === undefined || f.kind === kind));
    if (fault) {
      fault.left -= 1;
      this.faults = this.faults.filter((f) => f.left > 0);
      if (fault.drop) {
        req.socket.destroy();
        return;
      }
      if (fault.status !== undefined) {
        if (fault.status === 429) {
          this.send(
            res,
            429,
            {
              status: 'error',
              message: 'You have reached your ten_secondly_rolling limit.',
              errorType: 'RATE_LIMIT',
              correlationId: randomUUID(),
              policyName: 'TEN_SECONDLY_ROLLING',
            },
            fault.retryAfter !== undefined ? { 'retry-after': String(fault.retryAfter) } : {},
          );
        } else {
          this.error(res, fault.status, fault.status >= 500 ? 'INTERNAL_ERROR' : 'VALIDATION_ERROR', fault.message ?? `scripted ${fault.status}`);
        }
        return;
      }
    }

    const auth = req.headers.authorization;
    if (auth !== `Bearer ${this.token}`) {
      this.error(
        res,
        401,
        'INVALID_AUTHENTICATION',
        'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview',
      );
      return;
    }

    let body: any = null;
    if (raw !== '') {
      try {
        body = JSON.parse(raw);
      } catch {
        this.error(res, 400, 'VALIDATION_ERROR', 'Invalid input JSON on line 1');
        return;
      }
    }

    if (fault?.dropAfterServe) {
      const sink = { status: 0, body: undefined as unknown };
      this.route(kind, method, path, url.searchParams, body, {
        send: (status, b) => {
          sink.status = status;
          sink.body = b;
        },
      });
      req.socket.destroy();
      return;
    }
    this.route(kind, method, path, url.searchParams, body, {
      send: (status, b, headers) => this.send(res, status, b, headers),
    });
  }

  private route(
    kind: Kind,
    _method: string,
    path: string,
    query: URLSearchParams,
    body: any,
    out: { send: (status: number, body: unknown, headers?: Record<string, string>) => void },
  ): void {
    const fail = (status: number, category: string, message: string, extra: Record<string, unknown> = {}) =>
      out.send(status, { status: 'error', message, correlationId: randomUUID(), category, ...extra });
    const parts = path.split('/').filter(Boolean);

    switch (kind) {
      case 'contacts.list': {
        const limit = Math.min(Number(query.get('limit') ?? 10), 100);
        const all = [...this.objects.contacts.values()].sort((a, b) => Number(a.id) - Number(b.id));
        const start = Number(query.get('after') ?? 0);
        const page = all.slice(start, start + limit);
        const next = start + limit < all.length ? { paging: { next: { after: String(start + limit), link: '' } } } : {};
        out.send(200, { results: page.map((o) => this.view(o, 'contacts', ['email', 'firstname', 'lastname'])), ...next });
        return;
      }
      case 'contacts.search':
        this.search(body, out, fail);
        return;
      case 'contacts.create':
      case 'notes.create':
      case 'deals.create': {
        const type = parts[3] as ObjectType;
        this.create(type, body, out, fail);
        return;
      }
      case 'contacts.update': {
        const id = parts[4] as string;
        const obj = this.objects.contacts.get(id);
        if (!obj) return fail(404, 'OBJECT_NOT_FOUND', 'resource not found');
        const props = body?.properties;
        if (typeof props !== 'object' || props === null) return fail(400, 'VALIDATION_ERROR', 'Invalid input JSON: properties is required');
        const bad = this.checkProperties('contacts', props, id);
        if (bad) return fail(bad.status, bad.category, bad.message);
        const updated = this.modify('contacts', id, stringProps(props));
        out.send(200, this.view(updated, 'contacts', Object.keys(props)));
        return;
      }
      case 'notes.batchRead': {
        const inputs: { id: string }[] = Array.isArray(body?.inputs) ? body.inputs : [];
        if (inputs.length > 100) return fail(400, 'VALIDATION_ERROR', 'Batch input cannot exceed 100 inputs');
        const wanted: string[] = Array.isArray(body?.properties) ? body.properties : [];
        const started = new Date().toISOString();
        const results = inputs.map((i) => this.objects.notes.get(String(i.id))).filter((o): o is StoredObject => o !== undefined);
        out.send(200, {
          status: 'COMPLETE',
          results: results.map((o) => this.view(o, 'notes', wanted)),
          startedAt: started,
          completedAt: new Date().toISOString(),
        });
        return;
      }
      case 'deals.read': {
        const key = decodeURIComponent(parts[4] as string);
        const idProperty = query.get('idProperty');
        const wanted = (query.get('properties') ?? '').split(',').filter(Boolean);
        let deal: StoredObject | undefined;
        if (idProperty && idProperty !== 'hs_object_id') {
          const def = this.properties.deals.get(idProperty);
          if (!def?.hasUniqueValue) return fail(400, 'VALIDATION_ERROR', `Property ${idProperty} is not a unique identifier property`);
          deal = [...this.objects.deals.values()].find((d) => d.properties[idProperty] === key);
        } else deal = this.objects.deals.get(key);
        if (!deal) return fail(404, 'OBJECT_NOT_FOUND', 'resource not found');
        out.send(200, this.view(deal, 'deals', wanted));
        return;
      }
      case 'associations.read': {
        const [, , , fromType, fromId, , toType] = parts as [string, string, string, string, string, string, string];
        const limit = Math.min(Number(query.get('limit') ?? 500), 500);
        const start = Number(query.get('after') ?? 0);
        const all = [...(this.links.get(`${fromType}:${fromId}`) ?? [])]
          .filter((l) => l.startsWith(`${toType}:`))
          .map((l) => l.slice(toType.length + 1))
          .sort((a, b) => Number(a) - Number(b));
        const page = all.slice(start, start + limit);
        const typeId = REVERSE_TYPES[`${fromType}:${toType}`] ?? 0;
        const next = start + limit < all.length ? { paging: { next: { after: String(start + limit), link: '' } } } : {};
        out.send(200, {
          results: page.map((id) => ({ toObjectId: Number(id), associationTypes: [{ category: 'HUBSPOT_DEFINED', typeId, label: null }] })),
          ...next,
        });
        return;
      }
      case 'properties.read': {
        const type = parts[3] as ObjectType;
        const def = this.properties[type]?.get(parts[4] as string);
        if (!def) return fail(404, 'OBJECT_NOT_FOUND', `Unable to find property ${parts[4]} on ${type}`);
        out.send(200, this.propertyView(def));
        return;
      }
      case 'properties.create': {
        const type = parts[3] as ObjectType;
        const defs = this.properties[type];
        if (!defs) return fail(400, 'VALIDATION_ERROR', `Unknown object type ${type}`);
        for (const field of ['name', 'label', 'type', 'fieldType', 'groupName'])
          if (typeof body?.[field] !== 'string' || body[field] === '') return fail(400, 'VALIDATION_ERROR', `Property ${field} is required`);
        if (defs.has(body.name)) return fail(409, 'OBJECT_ALREADY_EXISTS', `Property ${body.name} already exists`);
        const def: PropertyDef = {
          name: body.name,
          label: body.label,
          type: body.type,
          fieldType: body.fieldType,
          groupName: body.groupName,
          description: body.description ?? '',
          hasUniqueValue: body.hasUniqueValue === true,
          options: Array.isArray(body.options) ? body.options : [],
          custom: true,
        };
        defs.set(def.name, def);
        out.send(201, this.propertyView(def));
        return;
      }
      default:
        fail(404, 'OBJECT_NOT_FOUND', `No route for ${path}`);
    }
  }

  private propertyView(def: PropertyDef): unknown {
    const at = new Date(0).toISOString();
    return {
      name: def.name,
      label: def.label,
      type: def.type,
      fieldType: def.fieldType,
      groupName: def.groupName,
      description: def.description,
      options: def.options,
      hasUniqueValue: def.hasUniqueValue,
      hidden: false,
      formField: false,
      calculated: false,
      externalOptions: false,
      createdAt: at,
      updatedAt: at,
      modificationMetadata: { archivable: def.custom, readOnlyDefinition: !def.custom, readOnlyValue: false },
    };
  }

  /** An object as HubSpot answers it: the asked properties plus the ones it always adds. */
  private view(obj: StoredObject, type: ObjectType, wanted: string[]): unknown {
    const always = type === 'contacts' ? ['createdate', 'lastmodifieddate', 'hs_object_id'] : ['hs_createdate', 'hs_lastmodifieddate', 'hs_object_id'];
    const props: Record<string, string | null> = {};
    for (const name of [...always, ...wanted]) props[name] = obj.properties[name] ?? null;
    return {
      id: obj.id,
      properties: props,
      createdAt: new Date(obj.createdAt).toISOString(),
      updatedAt: new Date(obj.updatedAt).toISOString(),
      archived: false,
    };
  }

  private checkProperties(
    type: ObjectType,
    props: Record<string, unknown>,
    selfId: string | null,
  ): { status: number; category: string; message: string } | null {
    const missing = Object.keys(props).filter((name) => !this.properties[type].has(name));
    if (missing.length > 0)
      return {
        status: 400,
        category: 'VALIDATION_ERROR',
        message: `Property values were not valid: ${JSON.stringify(missing.map((name) => ({ isValid: false, message: `Property "${name}" does not exist`, error: 'PROPERTY_DOESNT_EXIST', name })))}`,
      };
    for (const [name, value] of Object.entries(props)) {
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')
        return { status: 400, category: 'VALIDATION_ERROR', message: `Property values were not valid: ${name} must be a string` };
      const unique = (type === 'contacts' && name === 'email') || this.properties[type].get(name)?.hasUniqueValue;
      if (!unique || String(value) === '') continue;
      const other = [...this.objects[type].values()].find((o) => o.id !== selfId && (o.properties[name] ?? '').toLowerCase() === String(value).toLowerCase());
      if (other) {
        if (type === 'contacts' && name === 'email') return { status: 409, category: 'CONFLICT', message: `Contact already exists. Existing ID: ${other.id}` };
        return { status: 409, category: 'CONFLICT', message: `A ${type.slice(0, -1)} with ${name} ${String(value)} already exists. Existing ID: ${other.id}` };
      }
    }
    return null;
  }

  private create(
    type: ObjectType,
    body: any,
    out: { send: (status: number, body: unknown) => void },
    fail: (status: number, category: string, message: string) => void,
  ): void {
    const props = body?.properties;
    if (typeof props !== 'object' || props === null) return fail(400, 'VALIDATION_ERROR', 'Invalid input JSON: properties is required');
    const bad = this.checkProperties(type, props, null);
    if (bad) return fail(bad.status, bad.category, bad.message);
    if (type === 'notes' && !props.hs_timestamp) return fail(400, 'VALIDATION_ERROR', 'Property values were not valid: hs_timestamp is required');
    if (type === 'deals') {
      if (!props.dealname) return fail(400, 'VALIDATION_ERROR', 'Property values were not valid: dealname is required');
      const pipeline = String(props.pipeline ?? 'default');
      const stages = this.pipelines.get(pipeline);
      if (!stages) return fail(400, 'VALIDATION_ERROR', `Property values were not valid: ${pipeline} is not a valid pipeline`);
      if (!props.dealstage || !stages.includes(String(props.dealstage)))
        return fail(400, 'VALIDATION_ERROR', `Property values were not valid: ${String(props.dealstage)} is not a valid dealstage in pipeline ${pipeline}`);
      if (props.hubspot_owner_id !== undefined && !this.owners.has(String(props.hubspot_owner_id)))
        return fail(400, 'VALIDATION_ERROR', `Property values were not valid: ${String(props.hubspot_owner_id)} is not a valid owner id`);
    }
    const associations: any[] = Array.isArray(body?.associations) ? body.associations : [];
    const links: { toType: ObjectType; toId: string }[] = [];
    for (const a of associations) {
      const toId = String(a?.to?.id ?? '');
      const types: any[] = Array.isArray(a?.types) ? a.types : [];
      const spec = types[0];
      const entry = Object.entries(ASSOCIATION_TYPES).find(([k, v]) => k.startsWith(`${type}:`) && v === spec?.associationTypeId);
      if (spec?.associationCategory !== 'HUBSPOT_DEFINED' || !entry)
        return fail(400, 'VALIDATION_ERROR', `Invalid association type ${JSON.stringify(spec ?? null)} for ${type}`);
      const toType = entry[0].split(':')[1] as ObjectType;
      if (!this.objects[toType].has(toId)) return fail(400, 'VALIDATION_ERROR', `One or more association targets do not exist: ${toType} ${toId}`);
      links.push({ toType, toId });
    }
    const obj = this.insert(type, stringProps(props));
    for (const l of links) this.link(type, obj.id, l.toType, l.toId);
    out.send(201, this.view(obj, type, Object.keys(props)));
  }

  private search(body: any, out: { send: (status: number, body: unknown) => void }, fail: (status: number, category: string, message: string) => void): void {
    const limit = body?.limit ?? 10;
    if (typeof limit !== 'number' || limit < 1 || limit > SEARCH_PAGE_MAX)
      return fail(400, 'VALIDATION_ERROR', `limit must be between 1 and ${SEARCH_PAGE_MAX}`);
    const after = Number(body?.after ?? 0);
    if (!Number.isInteger(after) || after < 0) return fail(400, 'VALIDATION_ERROR', 'after must be a non-negative integer');
    if (after + limit > SEARCH_DEPTH_MAX) return fail(400, 'VALIDATION_ERROR', `Search results are limited to ${SEARCH_DEPTH_MAX} records`);
    const groups: any[] = Array.isArray(body?.filterGroups) ? body.filterGroups : [];
    if (groups.length > 5) return fail(400, 'VALIDATION_ERROR', 'Too many filter groups (at most 5)');
    const sorts: any[] = Array.isArray(body?.sorts) ? body.sorts : [];
    if (sorts.length > 1) return fail(400, 'VALIDATION_ERROR', 'Only one sort is allowed');
    const sort = sorts[0];
    if (sort !== undefined && (typeof sort !== 'object' || typeof sort.propertyName !== 'string'))
      return fail(400, 'VALIDATION_ERROR', 'A sort is { propertyName, direction }');
    const props: string[] = Array.isArray(body?.properties) ? body.properties : ['email', 'firstname', 'lastname'];
    for (const group of groups)
      for (const f of group?.filters ?? [])
        if (!this.properties.contacts.has(f?.propertyName))
          return fail(400, 'VALIDATION_ERROR', `There was a problem with the request: property ${String(f?.propertyName)} does not exist`);

    const matches = (o: StoredObject) =>
      groups.length === 0 ||
      groups.some((g) =>
        (g.filters ?? []).every((f: any) => matchFilter(o.properties[f.propertyName], f, this.properties.contacts.get(f.propertyName)?.type ?? 'string')),
      );
    const horizon = Date.now() - this.searchLagMs;
    let all = [...this.objects.contacts.values()].filter((o) => (this.searchLagMs === 0 || o.updatedAt <= horizon) && matches(o));
    all.sort((a, b) => Number(a.id) - Number(b.id));
    if (sort) {
      const dir = sort.direction === 'DESCENDING' ? -1 : 1;
      const type = this.properties.contacts.get(sort.propertyName)?.type ?? 'string';
      all = all.sort((a, b) => dir * compare(a.properties[sort.propertyName], b.properties[sort.propertyName], type));
    }
    const page = all.slice(after, after + limit);
    const nextAfter = after + limit;
    const next = nextAfter < all.length ? { paging: { next: { after: String(nextAfter), link: '' } } } : {};
    out.send(200, { total: all.length, results: page.map((o) => this.view(o, 'contacts', props)), ...next });
  }
}

function stringProps(props: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(props)) out[k] = String(v);
  return out;
}

function asNumber(value: string | undefined, type: string): number {
  if (value === undefined || value === '') return Number.NaN;
  if (type === 'datetime') return /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  return Number(value);
}

function compare(a: string | undefined, b: string | undefined, type: string): number {
  if (type === 'datetime' || type === 'number') {
    const x = asNumber(a, type);
    const y = asNumber(b, type);
    if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : 1;
    if (Number.isNaN(y)) return -1;
    return x - y;
  }
  return (a ?? '').localeCompare(b ?? '');
}

/** One search filter, as HubSpot documents its operators (string comparison is case-insensitive). */
function matchFilter(value: string | undefined, f: any, type: string): boolean {
  const has = value !== undefined && value !== '';
  switch (f.operator) {
    case 'HAS_PROPERTY':
      return has;
    case 'NOT_HAS_PROPERTY':
      return !has;
    case 'EQ':
      return has && (type === 'datetime' ? compare(value, String(f.value), type) === 0 : value.toLowerCase() === String(f.value).toLowerCase());
    case 'NEQ':
      return !has || value.toLowerCase() !== String(f.value).toLowerCase();
    case 'IN':
      return has && Array.isArray(f.values) && f.values.some((v: unknown) => String(v).toLowerCase() === value.toLowerCase());
    case 'GT':
      return has && compare(value, String(f.value), type) > 0;
    case 'GTE':
      return has && compare(value, String(f.value), type) >= 0;
    case 'LT':
      return has && compare(value, String(f.value), type) < 0;
    case 'LTE':
      return has && compare(value, String(f.value), type) <= 0;
    default:
      return false;
  }
}
