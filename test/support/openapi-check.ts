import { Ajv2020 } from "ajv/dist/2020.js";

/** One request and the response to it, as a client saw them. */
export interface Exchange {
  readonly method: string;
  /** Path after the base path, without the query string. */
  readonly path: string;
  readonly requestBody: string | undefined;
  readonly status: number;
  readonly headers: Headers;
  /** The body's text, or undefined for an event stream, which is not read to its end. */
  readonly body: string | undefined;
}

type Json = Record<string, unknown>;

/** OpenAPI's methods, in the order the service's `Allow` lists them. */
const OPENAPI_METHODS = ["get", "head", "post", "put", "patch", "delete", "options", "trace"];

/**
 * Checks exchanges against an OpenAPI 3.1 document with a standard JSON Schema validator (Ajv,
 * draft 2020-12): the path, method and status must be documented (a path the document does not
 * list returns 404 with an Error, a method it does not list 405 with Allow naming those it does),
 * every required header present and valid, the body exactly what the response's content says
 * (none when it has no content), and the request body of a successful operation valid against its schema. Returns the problems found.
 */
export function openApiChecker(document: Json): (exchange: Exchange) => string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  ajv.addSchema(document, "openapi");

  /** The pointer of the node at `pointer`, after following its `$ref`s. */
  const follow = (pointer: string): string => {
    let current = pointer;
    for (let ref = nodeAt(current)?.$ref; typeof ref === "string"; ref = nodeAt(current)?.$ref) current = ref.slice(1);
    return current;
  };
  const nodeAt = (pointer: string): Json | undefined => {
    let node: unknown = document;
    for (const part of pointer.split("/").slice(1)) {
      node = (node as Json | undefined)?.[part.replaceAll("~1", "/").replaceAll("~0", "~")];
    }
    return node as Json | undefined;
  };
  const validate = (schemaPointer: string, value: unknown): string | undefined => {
    const check = ajv.getSchema(`openapi#${schemaPointer}`);
    if (check === undefined) return `no schema at ${schemaPointer}`;
    return check(value) ? undefined : ajv.errorsText(check.errors);
  };

  /**
   * The document's path that `path` is: itself when listed, else a template whose `{name}`
   * segments take the segment (as an integer written canonically, for an integer parameter), valid
   * against its parameter's schema.
   */
  const documentedPath = (path: string): string => {
    const paths = (document.paths ?? {}) as Record<string, Json>;
    if (path in paths) return path;
    const segments = path.split("/");
    for (const [template, item] of Object.entries(paths)) {
      const parts = template.split("/");
      if (!template.includes("{") || parts.length !== segments.length) continue;
      const parameters = (item.parameters ?? []) as Json[];
      const fits = parts.every((part, i) => {
        const segment = segments[i] ?? "";
        if (!part.startsWith("{")) return part === segment;
        const index = parameters.findIndex((each) => each.in === "path" && `{${each.name}}` === part);
        if (index < 0) return false;
        const schema = `/paths/${escapePointer(template)}/parameters/${index}/schema`;
        // A string parameter (a list's name) takes the segment as it is; an integer one written canonically.
        if (nodeAt(schema)?.type === "string") return validate(schema, segment) === undefined;
        if (!/^(0|[1-9][0-9]*)$/.test(segment)) return false;
        return validate(schema, Number(segment)) === undefined;
      });
      if (fits) return template;
    }
    return path;
  };

  // The last body each response's schema accepted: a list read again unchanged (16 MiB at its
  // default limit, read after every refused request to see that it did not change) is not parsed
  // and validated again.
  const accepted = new Map<string, string>();

  return (exchange) => {
    const problems: string[] = [];
    const where = `${exchange.method} ${exchange.path} -> ${exchange.status}`;
    const checkResponse = (responsePointer: string): void => {
      const response = nodeAt(responsePointer) ?? {};
      for (const name of Object.keys((response.headers ?? {}) as Json)) {
        const headerPointer = follow(`${responsePointer}/headers/${escapePointer(name)}`);
        const value = exchange.headers.get(name);
        if (value === null) {
          if (nodeAt(headerPointer)?.required === true) problems.push(`${where}: missing header ${name}`);
          continue;
        }
        const error = validate(`${headerPointer}/schema`, value);
        if (error !== undefined) problems.push(`${where}: header ${name}: ${error}`);
      }
      const content = response.content as Json | undefined;
      if (content === undefined) {
        if (exchange.body !== "" && exchange.body !== undefined) {
          problems.push(`${where}: a body where the document says none`);
        }
        return;
      }
      const contentType = exchange.headers.get("Content-Type") ?? "";
      const mediaType = contentType.split(";", 1)[0]?.trim() ?? "";
      if (!(mediaType in content)) {
        problems.push(`${where}: Content-Type ${JSON.stringify(contentType)} not documented`);
        return;
      }
      if (exchange.body === undefined) return;
      const schemaPointer = `${responsePointer}/content/${escapePointer(mediaType)}/schema`;
      if (accepted.get(schemaPointer) === exchange.body) return;
      // A JSON body is checked as the value it encodes; any other (the HTML page) as the text it is.
      let body: unknown = exchange.body;
      if (mediaType === "application/json") {
        try {
          body = JSON.parse(exchange.body as string);
        } catch {
          problems.push(`${where}: the body is not JSON`);
          return;
        }
      }
      const error = validate(schemaPointer, body);
      if (error === undefined) accepted.set(schemaPointer, exchange.body);
      else problems.push(`${where}: body ${error}`);
    };

    const pathPointer = `/paths/${escapePointer(documentedPath(exchange.path))}`;
    const pathItem = nodeAt(pathPointer);
    if (pathItem === undefined) {
      if (exchange.status !== 404) problems.push(`${where}: an undocumented path must return 404`);
      else checkError(exchange, where, problems, validate);
      return problems;
    }
    const method = exchange.method.toLowerCase();
    const operationPointer = `${pathPointer}/${method}`;
    if (!OPENAPI_METHODS.includes(method) || nodeAt(operationPointer) === undefined) {
      // The document says a method a path does not list returns 405, with Allow naming those it lists.
      const allow = OPENAPI_METHODS.filter((each) => each !== "options" && each in pathItem)
        .map((each) => each.toUpperCase())
        .join(", ");
      if (exchange.status !== 405) problems.push(`${where}: a method the path does not list must return 405`);
      else if (exchange.headers.get("Allow") !== allow) {
        problems.push(
          `${where}: Allow ${JSON.stringify(exchange.headers.get("Allow"))} is not the documented ${allow}`,
        );
      } else if (exchange.body !== "") problems.push(`${where}: a 405 has a body`);
      return problems;
    }
    const statusPointer = `${operationPointer}/responses/${exchange.status}`;
    if (nodeAt(statusPointer) === undefined) {
      problems.push(`${where}: undocumented status`);
      return problems;
    }
    checkResponse(follow(statusPointer));
    const requestSchema = `${follow(`${operationPointer}/requestBody`)}/content/application~1json/schema`;
    if (exchange.status === 200 && exchange.requestBody !== undefined && nodeAt(requestSchema) !== undefined) {
      const error = validate(requestSchema, JSON.parse(exchange.requestBody));
      if (error !== undefined) problems.push(`${where}: request body ${error}`);
    }
    return problems;
  };
}

/** A 404 is JSON, its body the document's Error. */
function checkError(
  exchange: Exchange,
  where: string,
  problems: string[],
  validate: (schemaPointer: string, value: unknown) => string | undefined,
): void {
  if (exchange.headers.get("Content-Type")?.split(";", 1)[0] !== "application/json") {
    problems.push(`${where}: a 404 must be JSON`);
    return;
  }
  let body: unknown;
  try {
    body = JSON.parse(exchange.body ?? "");
  } catch {
    problems.push(`${where}: the body is not JSON`);
    return;
  }
  const error = validate("/components/schemas/Error", body);
  if (error !== undefined) problems.push(`${where}: body ${error}`);
}

function escapePointer(segment: string): string {
  return segment.replaceAll("~", "~0").replaceAll("/", "~1");
}

const decoder = new TextDecoder();

/** A fetch function, as the conformance suite takes it. */
type FetchFunction = (request: Request) => Promise<Response>;

/**
 * Wraps `fetch` so that every exchange is checked against the target's own `/openapi.json`; an
 * exchange the document does not describe rejects with the problems, failing the case that made it.
 */
export function checkedAgainstOpenApi(fetch: FetchFunction, basePath = ""): FetchFunction {
  let checker: Promise<(exchange: Exchange) => string[]> | undefined;
  return async (request) => {
    const url = new URL(request.url);
    checker ??= fetch(new Request(`${url.origin}${basePath}/openapi.json`)).then(async (res) =>
      openApiChecker((await res.json()) as Json),
    );
    const check = await checker;
    const copy = request.body === null ? undefined : request.clone();
    const received = await fetch(request);
    // An event stream goes on for as long as it is read: its headers are checked, not its body.
    // Any other body is read here once, and handed on as the same bytes.
    const streaming = received.headers.get("Content-Type")?.startsWith("text/event-stream") === true;
    const bytes = streaming ? undefined : new Uint8Array(await received.arrayBuffer());
    const body = bytes === undefined ? undefined : decoder.decode(bytes);
    const response =
      bytes === undefined
        ? received
        : new Response(bytes.byteLength === 0 ? null : bytes, {
            status: received.status,
            statusText: received.statusText,
            headers: received.headers,
          });
    const inside = url.pathname === basePath || url.pathname.startsWith(`${basePath}/`);
    const requestBody = response.status === 200 && copy !== undefined ? await copy.text() : undefined;
    // Not awaited: a tee's cancel settles only once the other branch, which the server may not read, is done too.
    if (requestBody === undefined) copy?.body?.cancel().catch(() => {});
    const problems = check({
      method: request.method,
      path: inside ? url.pathname.slice(basePath.length) : `(outside the base path) ${url.pathname}`,
      requestBody,
      status: response.status,
      headers: response.headers,
      body,
    });
    if (problems.length > 0) throw new Error(`Not as /openapi.json describes it:\n${problems.join("\n")}`);
    return response;
  };
}
