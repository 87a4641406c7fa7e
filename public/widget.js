/**
 * The Agent Run Service chat widget. Embed with one tag:
 *   <script src="https://<api>/widget.js" data-widget-key="ars_pub_..." async></script>
 * It renders a chat bubble and panel (in a shadow root, so page styles do not leak in), talks to
 * the api's /api/v1/widget/* gateway with a visitor token, streams answers (SSE over fetch), shows
 * human-input prompts, and keeps its visitor, task and last event id in localStorage so a reload
 * mid-run resumes the stream where it stopped (Last-Event-ID). Plain browser JavaScript, no build.
 */
(function () {
  'use strict';
  var script = document.currentScript || document.querySelector('script[data-widget-key]');
  if (!script) return;
  var widgetKey = script.getAttribute('data-widget-key') || '';
  var apiBase = String(script.src).replace(/\/widget\.js(\?.*)?$/, '');
  var storageKey = 'ars-widget:' + widgetKey.slice(0, 16);
  var title = script.getAttribute('data-title') || 'Chat';

  // ---- state kept across reloads
  function load() {
    try {
      return JSON.parse(localStorage.getItem(storageKey) || '{}') || {};
    } catch {
      return {};
    }
  }
  var state = load();
  function save() {
    try {
      localStorage.setItem(storageKey, JSON.stringify(state));
    } catch {
      /* private mode: the chat still works, it just does not survive a reload */
    }
  }

  // ---- DOM
  var host = document.createElement('div');
  host.setAttribute('data-ars-widget', '');
  var root = host.attachShadow ? host.attachShadow({ mode: 'open' }) : host;
  root.innerHTML =
    '<style>' +
    ':host{all:initial}' +
    '.bubble{position:fixed;right:20px;bottom:20px;width:56px;height:56px;border-radius:50%;border:0;background:#2557d6;color:#fff;display:flex;align-items:center;justify-content:center;cursor:pointer;box-shadow:0 4px 14px rgba(0,0,0,.25);z-index:2147483646}' +
    '.bubble:focus-visible,button:focus-visible,input:focus-visible,textarea:focus-visible{outline:3px solid #f5a623;outline-offset:2px}' +
    '.panel{position:fixed;right:20px;bottom:88px;width:min(360px,calc(100vw - 40px));height:min(520px,calc(100vh - 120px));display:flex;flex-direction:column;background:#fff;color:#1b1b1b;border-radius:12px;box-shadow:0 8px 30px rgba(0,0,0,.3);font:14px/1.4 system-ui,sans-serif;z-index:2147483647;overflow:hidden}' +
    '.panel[hidden]{display:none}' +
    '.head{display:flex;align-items:center;justify-content:space-between;padding:10px 14px;background:#2557d6;color:#fff;font-weight:600}' +
    '.head button{background:none;border:0;color:#fff;font-size:20px;cursor:pointer}' +
    '.log{flex:1;overflow-y:auto;padding:12px;display:flex;flex-direction:column;gap:8px}' +
    '.msg{max-width:85%;padding:8px 10px;border-radius:10px;white-space:pre-wrap;word-wrap:break-word}' +
    '.user{align-self:flex-end;background:#2557d6;color:#fff}' +
    '.assistant{align-self:flex-start;background:#eef1f6}' +
    '.error{align-self:stretch;background:#fde8e8;color:#8a1c1c}' +
    '.prompt{align-self:stretch;border:1px solid #c9d3e6;border-radius:10px;padding:10px;display:flex;flex-direction:column;gap:6px}' +
    '.prompt .row{display:flex;gap:6px;flex-wrap:wrap}' +
    'form.send{display:flex;gap:6px;padding:10px;border-top:1px solid #e3e7ef}' +
    'textarea,input{flex:1;font:inherit;padding:6px 8px;border:1px solid #b8c2d6;border-radius:8px;resize:none}' +
    'button.primary{background:#2557d6;color:#fff;border:0;border-radius:8px;padding:6px 12px;font:inherit;cursor:pointer}' +
    'button.secondary{background:#fff;color:#2557d6;border:1px solid #2557d6;border-radius:8px;padding:6px 12px;font:inherit;cursor:pointer}' +
    'button:disabled{opacity:.5;cursor:default}' +
    '.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}' +
    '</style>' +
    '<button class="bubble" type="button" aria-label="Open chat" aria-expanded="false" aria-controls="ars-panel">' +
    '<svg width="26" height="26" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path fill="currentColor" d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z"/></svg></button>' +
    '<section class="panel" id="ars-panel" role="dialog" aria-label="' +
    escapeHtml(title) +
    '" hidden>' +
    '<div class="head"><span>' +
    escapeHtml(title) +
    '</span><button type="button" class="close" aria-label="Close chat">&times;</button></div>' +
    '<div class="log" role="log" aria-live="polite" aria-label="Conversation"></div>' +
    '<form class="send"><label class="sr" for="ars-input">Your message</label>' +
    '<textarea id="ars-input" rows="2" name="message" placeholder="Type a message…"></textarea>' +
    '<button class="primary" type="submit">Send</button></form>' +
    '</section>';
  var bubble = root.querySelector('.bubble');
  var panel = root.querySelector('.panel');
  var log = root.querySelector('.log');
  var form = root.querySelector('form.send');
  var input = root.querySelector('#ars-input');
  var sendButton = form.querySelector('button');
  var busy = false;
  var unavailable = false;

  function escapeHtml(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
    });
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function addMessage(role, text) {
    var m = el('div', 'msg ' + role, text);
    m.setAttribute('data-role', role);
    log.appendChild(m);
    log.scrollTop = log.scrollHeight;
    return m;
  }
  function showError(text) {
    addMessage('error', text).setAttribute('role', 'alert');
  }
  function setBusy(value) {
    busy = value;
    sendButton.disabled = value || unavailable;
  }
  function openPanel(open) {
    panel.hidden = !open;
    bubble.setAttribute('aria-expanded', String(open));
    bubble.setAttribute('aria-label', open ? 'Close chat' : 'Open chat');
    if (open) input.focus();
    else bubble.focus();
  }
  bubble.addEventListener('click', function () {
    openPanel(panel.hidden);
  });
  root.querySelector('.close').addEventListener('click', function () {
    openPanel(false);
  });
  panel.addEventListener('keydown', function (e) {
    if (e.key === 'Escape') openPanel(false);
  });
  input.addEventListener('keydown', function (e) {
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      if (form.requestSubmit) form.requestSubmit();
      else form.dispatchEvent(new Event('submit', { cancelable: true }));
    }
  });

  // ---- the gateway
  function session() {
    var body = { widget_key: widgetKey };
    if (state.visitorToken) body.visitor_token = state.visitorToken;
    return fetch(apiBase + '/api/v1/widget/session', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    }).then(function (res) {
      if (!res.ok)
        return res.json().then(
          function (b) {
            throw new Error(b.detail || 'session refused');
          },
          function () {
            throw new Error('session refused (' + res.status + ')');
          },
        );
      return res.json().then(function (s) {
        state.visitorToken = s.visitor_token;
        state.expiresAt = s.expires_at;
        state.visitorId = s.visitor_id;
        save();
        return s;
      });
    });
  }
  function ensureSession() {
    var fresh = state.visitorToken && state.expiresAt && Date.parse(state.expiresAt) - Date.now() > 60000;
    return fresh ? Promise.resolve() : session();
  }
  /** A gateway call with the visitor token; on 401 the token is renewed once and the call repeated. */
  function api(method, path, body, headers, retried) {
    return ensureSession()
      .then(function () {
        var h = { Authorization: 'Bearer ' + state.visitorToken };
        if (body) h['Content-Type'] = 'application/json';
        for (var k in headers || {}) h[k] = headers[k];
        return fetch(apiBase + '/api/v1/widget' + path, {
          method: method,
          headers: h,
          body: body ? JSON.stringify(body) : undefined,
        });
      })
      .then(function (res) {
        if (res.status === 401 && !retried) {
          state.expiresAt = null;
          return api(method, path, body, headers, true);
        }
        return res;
      });
  }
  // `detail` is a string, or for a 422 a list of {loc, msg, type}: its messages.
  function describeDetail(detail) {
    if (Array.isArray(detail))
      return detail
        .map(function (d) {
          return d && d.msg;
        })
        .filter(Boolean)
        .join('; ');
    return typeof detail === 'string' ? detail : '';
  }
  function failure(res) {
    return res
      .json()
      .then(
        function (b) {
          return describeDetail(b.detail) || 'HTTP ' + res.status;
        },
        function () {
          return 'HTTP ' + res.status;
        },
      )
      .then(function (detail) {
        var retry = res.headers.get('Retry-After');
        throw new Error(res.status === 429 && retry ? 'Too many messages; try again in ' + retry + ' s.' : detail);
      });
  }

  // ---- SSE over fetch: frames split by a blank line; `id:` and `data:` fields; comments ignored
  function readStream(res, onEvent) {
    var reader = res.body.getReader();
    var decoder = new TextDecoder();
    var buffer = '';
    function frame(text) {
      var id = null;
      var data = [];
      text.split('\n').forEach(function (line) {
        if (line.charAt(0) === ':') return;
        var colon = line.indexOf(':');
        var field = colon < 0 ? line : line.slice(0, colon);
        var value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') id = value;
        else if (field === 'data') data.push(value);
      });
      if (!data.length) return;
      var event;
      try {
        event = JSON.parse(data.join('\n'));
      } catch {
        return;
      }
      onEvent(event, id);
    }
    function pump() {
      return reader.read().then(function (r) {
        if (r.done) {
          if (buffer.trim()) frame(buffer);
          return;
        }
        buffer += decoder.decode(r.value, { stream: true }).replace(/\r\n?/g, '\n');
        var end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          frame(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
        return pump();
      });
    }
    return pump();
  }

  var answerBubble = null;
  function handleEvent(event, id) {
    if (id) {
      state.lastEventId = id;
      save();
    }
    if (event.type === 'RUN_STARTED') {
      state.taskId = event.thread_id;
      state.running = true;
      state.partial = '';
      save();
    } else if (event.type === 'TEXT_MESSAGE_START') {
      answerBubble = null;
    } else if (event.type === 'TEXT_MESSAGE_CONTENT') {
      if (!answerBubble) answerBubble = addMessage('assistant', '');
      answerBubble.textContent += event.delta;
      state.partial = answerBubble.textContent;
      save();
      log.scrollTop = log.scrollHeight;
    } else if (event.type === 'CUSTOM' && event.name === 'USER_INPUT_REQUIRED') {
      showPrompt(event.data);
    } else if (event.type === 'RUN_FINISHED' || event.type === 'RUN_ERROR') {
      if (event.type === 'RUN_ERROR') showError(event.message || 'The assistant could not answer.');
      state.running = false;
      state.partial = '';
      save();
      answerBubble = null;
      root.querySelectorAll('.prompt').forEach(function (p) {
        p.remove();
      });
    }
  }

  function follow(res) {
    if (!res.ok) return failure(res);
    var taskId = res.headers.get('X-Task-Id');
    if (taskId) {
      state.taskId = taskId;
      save();
    }
    return readStream(res, handleEvent);
  }

  function send(text) {
    setBusy(true);
    addMessage('user', text);
    var body = { messages: [{ role: 'user', content: text }] };
    if (state.taskId) body.task_id = state.taskId;
    state.lastEventId = null;
    save();
    return api('POST', '/run', body)
      .then(follow)
      .catch(function (err) {
        showError(err.message || String(err));
      })
      .then(function () {
        setBusy(false);
      });
  }

  form.addEventListener('submit', function (e) {
    e.preventDefault();
    var text = input.value.trim();
    if (!text || busy || unavailable) return;
    input.value = '';
    send(text);
  });

  // ---- human input
  function showPrompt(req) {
    if (root.querySelector('.prompt[data-request="' + req.request_id + '"]')) return;
    var box = el('form', 'prompt');
    box.setAttribute('data-request', req.request_id);
    box.setAttribute('aria-label', 'The assistant asks');
    var question = el('div', 'question', req.prompt);
    question.id = 'ars-q-' + req.request_id;
    box.appendChild(question);
    var row = el('div', 'row');
    box.appendChild(row);
    var base = { request_id: req.request_id, run_id: req.run_id, input_type: req.input_type };
    function submit(answer) {
      box.querySelectorAll('button,input,textarea').forEach(function (b) {
        b.disabled = true;
      });
      var body = {};
      for (var k in base) body[k] = base[k];
      for (var a in answer) body[a] = answer[a];
      api('POST', '/tasks/' + encodeURIComponent(state.taskId) + '/input', body)
        .then(function (res) {
          if (!res.ok) return failure(res);
          box.remove();
        })
        .catch(function (err) {
          showError(err.message);
          box.querySelectorAll('button,input,textarea').forEach(function (b) {
            b.disabled = false;
          });
        });
    }
    function button(label, cls, answer) {
      var b = el('button', cls, label);
      b.type = 'button';
      b.addEventListener('click', function () {
        submit(answer());
      });
      row.appendChild(b);
      return b;
    }
    function field(tag, label) {
      var f = el(tag);
      f.setAttribute('aria-label', label);
      if (tag === 'input') f.type = req.input_type === 'number' ? 'number' : 'text';
      row.appendChild(f);
      return f;
    }
    var t = req.input_type;
    if (t === 'choice') {
      (req.choices || []).forEach(function (c) {
        button(c, 'secondary', function () {
          return { value: c };
        });
      });
    } else if (t === 'confirmation') {
      button('Yes', 'primary', function () {
        return { confirmed: true };
      });
      button('No', 'secondary', function () {
        return { confirmed: false };
      });
    } else if (t === 'plan_approval' || t === 'action_approval') {
      button('Approve', 'primary', function () {
        return { approved: true };
      });
      button('Reject', 'secondary', function () {
        return { approved: false };
      });
    } else if (t === 'structured_questions') {
      var fields = (req.questions || []).map(function (q) {
        return [q.question, field('input', q.question)];
      });
      button('Send', 'primary', function () {
        var answers = {};
        fields.forEach(function (f) {
          answers[f[0]] = f[1].value;
        });
        return { answers: answers };
      });
    } else if (t === 'text' || t === 'number' || t === 'multiline') {
      var f = field(t === 'multiline' ? 'textarea' : 'input', req.prompt);
      f.setAttribute('aria-describedby', question.id);
      button('Send', 'primary', function () {
        return { value: String(f.value) };
      });
      box.addEventListener('submit', function (e) {
        e.preventDefault();
        submit({ value: String(f.value) });
      });
    }
    button('Dismiss', 'secondary', function () {
      return { cancelled: true };
    });
    log.appendChild(box);
    log.scrollTop = log.scrollHeight;
    var first = box.querySelector('input,textarea,button');
    if (first && !panel.hidden) first.focus();
  }

  // ---- start: a session, then the stored conversation, then a run that was still going
  function restore() {
    if (!state.taskId) return Promise.resolve();
    var taskPath = '/tasks/' + encodeURIComponent(state.taskId);
    return api('GET', taskPath + '/messages').then(function (res) {
      if (res.status === 403 || res.status === 404) {
        state.taskId = null;
        state.running = false;
        save();
        return;
      }
      if (!res.ok) return failure(res);
      return res.json().then(function (list) {
        var runId = String(state.lastEventId || '').split(':')[0];
        var partialStored = false;
        list.messages.forEach(function (m) {
          if ((m.role === 'user' || m.role === 'assistant') && m.content) addMessage(m.role, m.content);
          if (m.role === 'assistant' && m.run_id === runId && m.content === state.partial) partialStored = true;
        });
        if (!state.running) return;
        // The answer streamed before the reload, unless the run already stored it as a message.
        if (state.partial && !partialStored) answerBubble = addMessage('assistant', state.partial);
        setBusy(true);
        return api('GET', taskPath + '/pending-input')
          .then(function (r) {
            return r.ok ? r.json() : { pending: false };
          })
          .then(function (p) {
            if (p.pending && p.request) showPrompt(p.request);
          })
          .then(function () {
            return api(
              'GET',
              taskPath + '/stream',
              null,
              state.lastEventId ? { 'Last-Event-ID': state.lastEventId } : {},
            );
          })
          .then(function (res) {
            if (res.status !== 404 && res.status !== 422) return follow(res);
            // Nothing to resume (the run is gone, or the stored event id names no event of it).
            state.running = false;
            save();
          })
          .then(function () {
            setBusy(false);
          });
      });
    });
  }

  function start() {
    document.body.appendChild(host);
    setBusy(true);
    session()
      .then(function () {
        host.setAttribute('data-state', 'ready');
        return restore().catch(function (err) {
          showError(err.message || String(err));
        });
      })
      .then(function () {
        setBusy(false);
      })
      .catch(function (err) {
        unavailable = true;
        input.disabled = true;
        setBusy(false);
        host.setAttribute('data-state', 'error');
        showError(
          'The chat is not available here. ' +
            (err && err.message && err.message !== 'Failed to fetch' ? err.message : ''),
        );
      });
  }
  if (document.body) start();
  else document.addEventListener('DOMContentLoaded', start);
})();
