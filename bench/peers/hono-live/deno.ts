// The plain Hono peer with live changes on Deno.
import { serveOnDeno } from "../deno.ts";
import app from "./app.ts";

serveOnDeno(app.fetch);
