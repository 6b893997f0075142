// The app's calls to zrc-ctl: POST /api/NAME with JSON, over the cookie the token bought. An
// error answer carries the message and the field it is about, which the screens mark.

export class ApiError extends Error {
  constructor(message, field, status) {
    super(message);
    this.field = field ?? null;
    this.status = status;
  }
}

export async function api(name, body = {}) {
  let response;
  try {
    response = await fetch(`/api/${name}`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
      credentials: "same-origin", cache: "no-store",
    });
  } catch {
    throw new ApiError("zrc-ctl app is not running any more: start it again", null, 0);
  }
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(data.error || `zrc-ctl answered ${response.status}`, data.field, response.status);
  return data;
}

/** An element with `text` as its text (peer names never become HTML). */
export function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text != null) node.textContent = text;
  if (className) node.className = className;
  return node;
}

export function button(text, onClick, className) {
  const node = element("button", text, className);
  node.type = "button";
  node.addEventListener("click", onClick);
  return node;
}

/** "3 min ago", "2 h ago", "5 d ago", or "never". */
export function ago(iso) {
  if (!iso) return "never";
  const seconds = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
  if (seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ago`;
  return `${Math.floor(seconds / 86400)} d ago`;
}
