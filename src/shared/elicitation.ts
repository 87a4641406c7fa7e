import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { answerProblem, type AnswerProblem } from './answer-schemas.ts';
import type { Answer, InputType, PendingRequest, RequestDetails } from './input-requests.ts';

/*
 * A tool server's `elicitation/create` (form mode) as one of our input requests, and the answer back
 * as the server's ElicitResult. Used by the tool-call activity (asking, converting the answer) and by
 * the api (checking an answer before it is stored), so both read the requested schema alike.
 */

/** One field of MCP's restricted elicitation schema (flat: strings, numbers, booleans, enums, multi-select). */
interface FieldSchema {
  type?: string;
  title?: string;
  description?: string;
  enum?: unknown[];
  enumNames?: unknown[];
  oneOf?: { const?: unknown; title?: string }[];
  items?: { type?: string; enum?: unknown[]; anyOf?: { const?: unknown; title?: string }[] };
}

export interface RequestedSchema {
  type?: string;
  properties?: Record<string, FieldSchema>;
  required?: string[];
}

/** What a request's details carry about the tool server that asked (USER_INPUT_REQUIRED shows it too). */
export interface ElicitationDetails {
  server: string;
  tool: string;
  tool_call_id: string;
  requested_schema: RequestedSchema;
}

/** The answer as the server gets it. */
export type ElicitationReply =
  { action: 'accept'; content: Record<string, string | number | boolean | string[]> } | { action: 'decline' };

/** A field's choices as shown (titles where the schema has them) and the values they stand for. */
function choicesOf(field: FieldSchema): { label: string; value: unknown }[] | undefined {
  const titled = (options: { const?: unknown; title?: string }[]) =>
    options.map((o) => ({ label: String(o.title ?? o.const), value: o.const }));
  if (field.type === 'boolean')
    return [
      { label: 'yes', value: true },
      { label: 'no', value: false },
    ];
  if (field.oneOf) return titled(field.oneOf);
  if (field.enum) return field.enum.map((value, i) => ({ label: String(field.enumNames?.[i] ?? value), value }));
  if (field.type === 'array' && field.items?.anyOf) return titled(field.items.anyOf);
  if (field.type === 'array' && field.items?.enum) return field.items.enum.map((v) => ({ label: String(v), value: v }));
  return undefined;
}

/** The question a field becomes in a structured_questions request: its title (or name), marked when optional. */
function questionsOf(schema: RequestedSchema): { name: string; question: string; field: FieldSchema }[] {
  const required = new Set(schema.required ?? []);
  const seen = new Set<string>();
  return Object.entries(schema.properties ?? {}).map(([name, field]) => {
    let text = field.title && !seen.has(field.title) ? field.title : name;
    seen.add(text);
    if (field.type === 'array') text += ' (one or more, separated by commas)';
    if (!required.has(name)) text += ' (optional)';
    return { name, question: text, field };
  });
}

const FIELD_KEYWORDS = [
  'type',
  'title',
  'description',
  'format',
  'default',
  'enum',
  'enumNames',
  'oneOf',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
] as const;
const MAX_FIELDS = 50;

/** One option of a titled enum: its value and title only. */
const option = (o: unknown) => {
  const { const: value, title } = (o ?? {}) as { const?: unknown; title?: unknown };
  return { const: value, ...(typeof title === 'string' ? { title } : {}) };
};

/**
 * The schema with only the keywords of MCP's restricted elicitation schema, or undefined when it is
 * not a flat object of fields. What the server sent is compiled and checked by the api later: no
 * `pattern` (a regex from outside) or nesting gets that far.
 */
function flatSchema(schema: RequestedSchema): RequestedSchema | undefined {
  if ((schema.type && schema.type !== 'object') || !schema.properties || typeof schema.properties !== 'object')
    return undefined;
  const fields = Object.entries(schema.properties);
  if (fields.length > MAX_FIELDS) return undefined;
  const properties: Record<string, FieldSchema> = {};
  for (const [name, field] of fields) {
    if (!field || typeof field !== 'object') return undefined;
    const kept: Record<string, unknown> = {};
    for (const key of FIELD_KEYWORDS) if (key in field) kept[key] = field[key as keyof FieldSchema];
    if (Array.isArray(field.oneOf)) kept.oneOf = field.oneOf.map(option);
    if (field.items && typeof field.items === 'object') {
      const { enum: values, anyOf } = field.items;
      kept.items = {
        ...(field.items.type ? { type: field.items.type } : {}),
        ...(Array.isArray(values) ? { enum: values } : {}),
        ...(Array.isArray(anyOf) ? { anyOf: anyOf.map(option) } : {}),
      };
    }
    properties[name] = kept as FieldSchema;
  }
  const required = Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : undefined;
  return { type: 'object', properties, ...(required ? { required } : {}) };
}

/**
 * The input request a form elicitation becomes: no fields is a confirmation (no: decline), one boolean
 * a confirmation, one enum a choice, one number a number, one string a text; anything else is
 * structured_questions, a question per field. Undefined when the schema is not a flat object.
 */
export function elicitationRequest(
  message: string,
  schema: RequestedSchema,
  source: Omit<ElicitationDetails, 'requested_schema'>,
): { inputType: InputType; prompt: string; details: RequestDetails } | undefined {
  const flat = flatSchema(schema);
  if (!flat) return undefined;
  const elicitation: ElicitationDetails = { ...source, requested_schema: flat };
  const fields = Object.entries(flat.properties!);
  const [only] = fields;
  if (!only) return { inputType: 'confirmation', prompt: message, details: { elicitation } };
  if (fields.length === 1 && only[1].type !== 'array') {
    const [, field] = only;
    const prompt = field.description && field.description !== message ? `${message}\n${field.description}` : message;
    if (field.type === 'boolean') return { inputType: 'confirmation', prompt, details: { elicitation } };
    const choices = choicesOf(field);
    if (choices) return { inputType: 'choice', prompt, details: { choices: choices.map((c) => c.label), elicitation } };
    const inputType = field.type === 'number' || field.type === 'integer' ? 'number' : 'text';
    return { inputType, prompt, details: { ...(field.title ? { placeholder: field.title } : {}), elicitation } };
  }
  const questions = questionsOf(flat).map(({ question, field }) => {
    const choices = choicesOf(field)?.map((c) => c.label);
    return choices ? { question, choices } : { question };
  });
  return { inputType: 'structured_questions', prompt: message, details: { questions, elicitation } };
}

/** One answered field from its text: a number, yes/no, a choice's value, a list of choices; undefined when left empty. */
function fieldValue(field: FieldSchema, text: string): { value?: unknown; problem?: string } {
  const trimmed = text.trim();
  if (trimmed === '') return {};
  const choices = choicesOf(field);
  const pick = (label: string) =>
    choices!.find((c) => c.label === label) ?? choices!.find((c) => c.label.toLowerCase() === label.toLowerCase());
  if (field.type === 'array') {
    const picked = trimmed.split(',').map((s) => s.trim());
    const values = picked.map((label) => (choices ? pick(label)?.value : label));
    const unknown = picked.filter((_, i) => values[i] === undefined);
    if (unknown.length)
      return { problem: `not one of ${choices!.map((c) => c.label).join(', ')}: ${unknown.join(', ')}` };
    return { value: values };
  }
  if (field.type === 'boolean') {
    if (/^(yes|y|true)$/i.test(trimmed)) return { value: true };
    if (/^(no|n|false)$/i.test(trimmed)) return { value: false };
    return { problem: 'answer yes or no' };
  }
  if (choices) {
    const choice = pick(trimmed);
    return choice ? { value: choice.value } : { problem: `must be one of: ${choices.map((c) => c.label).join(', ')}` };
  }
  if (field.type === 'number' || field.type === 'integer') {
    const n = Number(trimmed);
    return Number.isFinite(n) ? { value: n } : { problem: 'must be a number' };
  }
  return { value: text };
}

const validator = new AjvJsonSchemaValidator();

/**
 * The server's reply to an answer of the request `elicitationRequest` made, or what is wrong with the
 * answer (a 422 of the input endpoint). Dismissing (`cancelled: true`) and a confirmation's "no" to a
 * request without fields decline; the content is checked against the requested schema (required
 * fields, formats, ranges) before it goes back.
 */
export function elicitationReply(
  request: PendingRequest,
  answer: Answer,
): { reply: ElicitationReply } | { problem: AnswerProblem } {
  const schema = request.details.elicitation!.requested_schema;
  const problem = answerProblem(request, answer);
  if (problem) return { problem };
  if (answer.cancelled) return { reply: { action: 'decline' } };
  const fields = Object.entries(schema.properties ?? {});
  const content: Record<string, string | number | boolean | string[]> = {};
  const fail = (loc: (string | number)[], msg: string) => ({
    problem: { loc, msg: `elicitation answer: ${msg}`, type: 'value_error' },
  });
  if ('confirmed' in answer) {
    if (fields.length === 0) return { reply: answer.confirmed ? { action: 'accept', content } : { action: 'decline' } };
    content[fields[0]![0]] = answer.confirmed;
  } else if ('value' in answer) {
    const [name, field] = fields[0]!;
    const { value, problem: wrong } = fieldValue(field, answer.value);
    if (wrong) return fail(['value'], wrong);
    if (value !== undefined) content[name] = value as string | number;
  } else if ('answers' in answer) {
    for (const { name, question, field } of questionsOf(schema)) {
      const { value, problem: wrong } = fieldValue(field, answer.answers[question] ?? '');
      if (wrong) return fail(['answers', question], `${question}: ${wrong}`);
      if (value !== undefined) content[name] = value as string | number | boolean | string[];
    }
  }
  const checked = validator.getValidator({ ...schema, type: 'object' })(content);
  if (!checked.valid) return fail([], checked.errorMessage ?? 'does not match the requested schema');
  return { reply: { action: 'accept', content } };
}
