-- Test-side stubs loaded into the real Neovim under test (luafile), before the plugin runs.
-- They record what the user would see and let the test answer prompts:
--   vim.ui.select -> T.selects (prompt, kind, the formatted items); T.choose(label) answers the latest
--   vim.ui.input  -> T.inputs; T.answer(text) answers the latest
--   vim.notify    -> T.notes (message, level), then the real vim.notify (so :messages has it too)
--   vim.fn.confirm -> T.confirms (message, choices); answers T.confirm_answer (default 1, the first choice)
-- T.view() returns all of it as plain data for the test (no functions cross msgpack).

_G.T = { selects = {}, inputs = {}, notes = {}, resumed = {}, summaries = {}, confirms = {}, confirm_answer = 1 }

vim.fn.confirm = function(msg, choices, default, kind)
  table.insert(T.confirms, { msg = msg, choices = choices or vim.NIL, default = default or vim.NIL, kind = kind or vim.NIL })
  return T.confirm_answer
end

vim.ui.select = function(items, opts, on_choice)
  opts = opts or {}
  local shown = {}
  for i, it in ipairs(items) do
    shown[i] = opts.format_item and opts.format_item(it) or tostring(it)
  end
  table.insert(T.selects, { prompt = opts.prompt, kind = opts.kind, items = shown, raw = items, on_choice = on_choice, done = false })
end

vim.ui.input = function(opts, on_confirm)
  table.insert(T.inputs, { prompt = opts.prompt, default = opts.default, on_confirm = on_confirm, done = false })
end

local real_notify = vim.notify
vim.notify = function(msg, level, opts)
  table.insert(T.notes, { msg = msg, level = level or vim.log.levels.INFO })
  return real_notify(msg, level, opts)
end

---Answers the latest open select with the item whose text contains `label` (plain), or nil to cancel.
function T.choose(label)
  local s = T.selects[#T.selects]
  assert(s and not s.done, 'no open vim.ui.select')
  s.done = true
  if label == nil or label == vim.NIL then
    return s.on_choice(nil, nil)
  end
  for i, text in ipairs(s.items) do
    if text:find(label, 1, true) then
      return s.on_choice(s.raw[i], i)
    end
  end
  error('no item contains ' .. label .. ' in ' .. vim.inspect(s.items))
end

function T.answer(text)
  local i = T.inputs[#T.inputs]
  assert(i and not i.done, 'no open vim.ui.input')
  i.done = true
  i.on_confirm(text ~= vim.NIL and text or nil)
end

function T.view()
  local selects, inputs = {}, {}
  for _, s in ipairs(T.selects) do
    table.insert(selects, { prompt = s.prompt or vim.NIL, kind = s.kind or vim.NIL, items = s.items, done = s.done })
  end
  for _, i in ipairs(T.inputs) do
    table.insert(inputs, { prompt = i.prompt or vim.NIL, default = i.default or vim.NIL, done = i.done })
  end
  return { selects = selects, inputs = inputs, notes = T.notes, confirms = T.confirms }
end

---Lines and a few options of a buffer, for assertions.
function T.buf(buf)
  buf = buf or vim.api.nvim_get_current_buf()
  local function opt(name)
    return vim.bo[buf][name]
  end
  return {
    buf = buf,
    name = vim.api.nvim_buf_get_name(buf),
    lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false),
    filetype = opt('filetype'),
    modifiable = opt('modifiable'),
    readonly = opt('readonly'),
    buftype = opt('buftype'),
    modified = opt('modified'),
  }
end
