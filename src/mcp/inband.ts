/**
 * On the 2025 revisions a JSON-RPC error is an answer, not an HTTP failure: the body carries
 * it and the status is 200. The SDK's single-exchange transport maps its own refusals the
 * 2026-07-28 way (`-32601` as 404), and a 2025 client reads a 404 as "session gone", so a
 * 2025-era answer that is a JSON-RPC error to a request (it has an id) goes out with 200.
 * Every other status stands: 400, 406 and 415 are the transport's own refusals of a message
 * it could not take.
 */
export async function inBandErrors(response: Response): Promise<Response> {
  if (response.status < 400 || !(response.headers.get('content-type') ?? '').includes('application/json')) return response;
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new Response(text, { status: response.status, headers: response.headers });
  }
  const answer = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as { id?: unknown; error?: unknown }) : undefined;
  const rpcError = answer?.error !== undefined && (typeof answer.id === 'string' || typeof answer.id === 'number');
  return new Response(text, { status: rpcError ? 200 : response.status, headers: response.headers });
}
