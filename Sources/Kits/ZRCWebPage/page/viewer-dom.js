// The viewer's elements, one definition for both pages: `view --web`'s (index.html, where they
// fill the body) and the app's (app.html, inside its viewer screen). A constant of this file, never
// anything a peer sent.
const markup = `
<header id="toolbar">
  <button id="disconnect" type="button" title="End the session">Disconnect</button>
  <button id="fullscreen" type="button" title="Fullscreen (the page takes the keyboard; hold Esc to leave)">Fullscreen</button>
  <label>Scale
    <select id="scale">
      <option value="fit" selected>Fit</option>
      <option value="one">1:1</option>
    </select>
  </label>
  <label hidden>Show <select id="monitor" title="One monitor of the host, or all"></select></label>
  <select id="keys" title="Send a key combination">
    <option value="" selected>Keys…</option>
    <option value="ctrl-alt-delete">Ctrl+Alt+Del</option>
  </select>
  <button id="take-clipboard" type="button" title="Copy the host's clipboard here">Take host clipboard</button>
  <button id="paste-button" type="button" title="Type or paste text for the host's clipboard">Paste box</button>
  <label title="One finger moves the pointer; tap clicks"><input id="touchpad" type="checkbox"> Touchpad</label>
  <button id="files-button" type="button" title="Upload and download files" hidden>Files</button>
</header>
<div id="screen-area" role="main" data-drop-hint="Drop to upload to the host"><canvas id="screen" width="1" height="1"></canvas></div>
<aside id="files-panel" aria-label="Files on the host" hidden>
  <div class="files-head"><strong>Files</strong> <button id="files-close" type="button" title="Close the file panel">×</button></div>
  <p id="files-target"></p>
  <div class="files-actions">
    <label id="files-pick-label" class="button">Upload files…<input id="files-pick" type="file" multiple hidden></label>
    <label id="files-pick-folder-label" class="button">Upload folder…<input id="files-pick-folder" type="file" webkitdirectory hidden></label>
  </div>
  <div class="files-nav"><button id="files-up" type="button" title="Parent directory">↑ Up</button> <button id="files-refresh" type="button" title="List again">⟳</button> <span id="files-path"></span></div>
  <p id="files-error" role="alert"></p>
  <div class="files-table"><table><tbody id="files-list"></tbody></table></div>
  <div id="files-transfers-box" hidden><strong>Transfers</strong><ul id="files-transfers"></ul></div>
</aside>
<dialog id="file-exists">
  <form method="dialog">
    <p></p>
    <div class="actions"><button value="skip">Skip</button> <button value="replace">Replace</button></div>
  </form>
</dialog>
<footer id="status" role="status" aria-live="polite">starting…</footer>
<textarea id="keyboard-sink" aria-label="keyboard input for the remote screen" autocomplete="off" autocapitalize="off" spellcheck="false"></textarea>
<dialog id="paste-box">
  <form method="dialog">
    <p>Text for the host's clipboard (or copy the host's text from here):</p>
    <textarea rows="8" cols="60"></textarea>
    <div class="actions"><button type="button" data-cancel>Close</button> <button type="submit">Send to host</button></div>
  </form>
</dialog>
`;

/** Puts the viewer's elements into `container` once. */
export function buildViewer(container) {
  if (document.getElementById("screen")) return;
  container.insertAdjacentHTML("beforeend", markup);
}
