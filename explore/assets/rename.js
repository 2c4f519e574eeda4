// gtformer explorer: renaming a topic from its panel, on a server that
// takes edits (/v1/info says "edits": true: gtformer serve --token). The
// label goes to PUT /v1/topics/{id}/label, which writes the model
// folder's edit log. app.js calls window.gtformerRename with the topic,
// a save function (label → the renamed topic) and what to do with it.
'use strict';

(function () {
  // gtformerRename returns the rename control of topic t: a button that
  // opens a text field; Enter or Save sends the label, Escape or Cancel
  // closes it; the server's refusal is shown beside it.
  window.gtformerRename = function (t, save, done) {
    const box = document.createElement('div');
    box.id = 'rename';
    const open = document.createElement('button');
    open.type = 'button';
    open.id = 'rename-open';
    open.textContent = 'Rename';
    const input = document.createElement('input');
    input.type = 'text';
    input.id = 'rename-input';
    input.maxLength = 80;
    input.value = t.label || '';
    input.setAttribute('aria-label', 'new label of topic #' + t.id);
    const ok = document.createElement('button');
    ok.type = 'button';
    ok.id = 'rename-save';
    ok.textContent = 'Save';
    const cancel = document.createElement('button');
    cancel.type = 'button';
    cancel.textContent = 'Cancel';
    const msg = document.createElement('span');
    msg.className = 'error';
    msg.id = 'rename-error';
    const editing = (on) => {
      open.hidden = on;
      for (const e of [input, ok, cancel]) e.hidden = !on;
      msg.textContent = '';
      if (on) { input.focus(); input.select(); }
    };
    const send = async () => {
      const label = input.value.trim();
      if (!label) { msg.textContent = 'a label must not be empty'; return; }
      ok.disabled = true;
      try {
        done(await save(label));
      } catch (err) {
        msg.textContent = err.message || String(err);
      } finally {
        ok.disabled = false;
      }
    };
    open.addEventListener('click', () => editing(true));
    cancel.addEventListener('click', () => editing(false));
    ok.addEventListener('click', send);
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') { e.preventDefault(); send(); }
      if (e.key === 'Escape') editing(false);
    });
    box.append(open, input, ' ', ok, ' ', cancel, ' ', msg);
    editing(false);
    return box;
  };
})();
