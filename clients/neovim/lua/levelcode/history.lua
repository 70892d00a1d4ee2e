-- levelcode.history: History as the user meets it.
--   * `pick()`: the project's sessions in vim.ui.select (Telescope, fzf-lua or dressing.nvim take
--     over where installed), pinned first, then newest first, "title · relative time · turns ·
--     model · state" (pinned, archived, forked from, moved from, open in another window,
--     interrupted); `pick({archived = true})` the archived ones. Choosing one offers Resume,
--     Fork from turn…, Open transcript, Rename, Pin (or Unpin), Archive (or Unarchive), Delete
--     (with Undo), Export as Markdown, and for a session
--     imported from a tool that resumes by id (Claude Code, Codex) "Continue in <tool>", which
--     runs the sidecar's `continueIn` command in a :terminal in the tool's project folder; and
--     for every session "Continue in an agent CLI…": session/handoff writes a new Claude Code or
--     Codex session of it, and that tool's resume runs in a :terminal split.
--   * `open_buffer()`: the same list in a buffer (`levelcode://history`) that stays open and is
--     redrawn whenever the sidecar reports a change (session/didChange), from any process.
--   * `search()`: full-text search, into a picker or the quickfix list.
-- Depends on levelcode.session, levelcode.resume, levelcode.transcript, levelcode.lifecycle,
-- levelcode.rpc, levelcode.config and levelcode.util.

local session = require('levelcode.session')
local resume = require('levelcode.resume')
local transcript = require('levelcode.transcript')
local lifecycle = require('levelcode.lifecycle')
local rpc = require('levelcode.rpc')
local config = require('levelcode.config')
local util = require('levelcode.util')
local ui = require('levelcode.ui')

local M = {}

M.actions = { 'Resume', 'Fork from turn…', 'Open transcript', 'Rename', 'Delete', 'Export as Markdown' }

---"Continue in Claude Code": the action of an imported session whose tool resumes by id.
---@param s table a SessionSummary
---@return string|nil
function M.continue_action(s)
  if type(s.continueIn) == 'table' and type(s.continueIn.argv) == 'table' and #s.continueIn.argv > 0 then
    return 'Continue in ' .. (s.sourceLabel or s.continueIn.argv[1])
  end
  return nil
end

---The actions offered for one session.
---@param s table
---@return string[]
function M.actions_for(s)
  local list = vim.deepcopy(M.actions)
  -- Pin or Unpin, then Archive or Unarchive, after Rename: a pinned chat is listed first, an
  -- archived one only in the archived list.
  table.insert(list, 5, s.pinned and 'Unpin' or 'Pin')
  table.insert(list, 6, s.archived and 'Unarchive' or 'Archive')
  if not rpc.has_feature('fork.atTurn') then
    table.remove(list, 2)
  end
  local cont = M.continue_action(s)
  if cont then
    table.insert(list, 2, cont)
  end
  if rpc.has_feature('handoff') then
    table.insert(list, cont and 3 or 2, M.HANDOFF)
  end
  return list
end

---"Continue in an agent CLI": any session, continued in Claude Code or Codex (session/handoff).
M.HANDOFF = 'Continue in an agent CLI…'

---The agent CLIs a session can be handed off to, as the running sidecar's capability lists them
---(`tools` with `handoff`): sidecar name, label, command on PATH, install line.
---@return {to: string, label: string, bin: string, install: string}[]
function M.handoff_tools()
  local out = {}
  for _, t in ipairs(require('levelcode.import').tools()) do
    if type(t.handoff) == 'table' then
      table.insert(out, { to = t.id, label = t.label, bin = t.handoff.bin, install = t.handoff.install })
    end
  end
  return out
end

---"install Claude Code (npm …) or Codex (npm …)": what to install when no agent CLI is on PATH.
---@param tools table[] M.handoff_tools()
---@return string
local function what_to_install(tools)
  local each = {}
  for _, t in ipairs(tools) do
    table.insert(each, t.label .. ' (' .. t.install .. ')')
  end
  if #each <= 1 then
    return table.concat(each)
  end
  return table.concat(each, ', ', 1, #each - 1) .. ' or ' .. each[#each]
end

---Runs argv in a :terminal split in cwd (never through a shell); `cb(nil, {job, buf})`.
local function in_terminal(argv, cwd, name, label, cb)
  vim.cmd('botright new')
  local job = vim.fn.termopen(argv, { cwd = cwd })
  if job <= 0 then
    local err = { message = 'could not start ' .. table.concat(argv, ' ') }
    util.error('cannot continue in ' .. label .. ': ' .. err.message)
    return cb(err, nil)
  end
  pcall(vim.api.nvim_buf_set_name, 0, name)
  vim.cmd('startinsert')
  cb(nil, { job = job, buf = vim.api.nvim_get_current_buf() })
end

---Hands a session off to an agent CLI on PATH: the sidecar writes a new session of that tool
---(session/handoff) and its resume command runs in a :terminal split. With several CLIs on PATH
---the user picks one; with none, one line says what to install.
---@param s table a SessionSummary (or {id, title})
---@param cb fun(err: any, result: any)
---@param to string|nil the tool ('claude-code' or 'codex'); asked when nil
function M.handoff(s, cb, to)
  local found = {}
  local tools = M.handoff_tools()
  for _, t in ipairs(tools) do
    if vim.fn.executable(t.bin) == 1 and (to == nil or to == t.to) then
      table.insert(found, t)
    end
  end
  if #found == 0 then
    local msg = #tools == 0 and 'no agent CLI to continue in: the sidecar is not running or names none'
      or 'no agent CLI on PATH to continue in: install ' .. what_to_install(tools)
    util.warn(msg)
    return cb({ message = msg }, nil)
  end
  local function run(t)
    rpc.request('session/handoff', { id = s.id, to = t.to }, function(err, r)
      if err then
        util.error('could not continue “' .. (s.title or s.id) .. '” in ' .. t.label .. ': ' .. util.err_text(err))
        return cb(err, nil)
      end
      if r.note and r.note ~= vim.NIL and r.note ~= '' then
        util.notify(t.label .. ': ' .. r.note)
      end
      in_terminal(r.argv, r.cwd, 'levelcode://handoff/' .. t.bin .. '/' .. r.id, t.label, cb)
    end)
  end
  if #found == 1 then
    return run(found[1])
  end
  local labels = {}
  for _, t in ipairs(found) do
    table.insert(labels, t.label)
  end
  ui.select(labels, { prompt = 'Continue “' .. (s.title or s.id) .. '” in ', kind = 'levelcode.handoff' }, function(_, i)
    if not i then
      return cb(nil, nil)
    end
    run(found[i])
  end)
end

---Runs the session's own tool on it (`claude --resume ID` and the like) in a :terminal in the
---project folder the tool recorded. argv is run as given, never through a shell.
---@param s table a SessionSummary with continueIn
---@param cb fun(err: any, result: any)
function M.continue_in_tool(s, cb)
  local c = s.continueIn
  local label = s.sourceLabel or c.argv[1]
  if vim.fn.isdirectory(c.cwd) ~= 1 then
    local err = { message = 'the project folder ' .. c.cwd .. ' ' .. label .. ' recorded is gone' }
    util.error('cannot continue in ' .. label .. ': ' .. err.message)
    return cb(err, nil)
  end
  if vim.fn.executable(c.argv[1]) ~= 1 then
    local err = { message = c.argv[1] .. ' is not on PATH' }
    util.error('cannot continue in ' .. label .. ': ' .. err.message)
    return cb(err, nil)
  end
  vim.cmd('botright new')
  local job = vim.fn.termopen(c.argv, { cwd = c.cwd })
  if job <= 0 then
    local err = { message = 'could not start ' .. table.concat(c.argv, ' ') }
    util.error('cannot continue in ' .. label .. ': ' .. err.message)
    return cb(err, nil)
  end
  pcall(vim.api.nvim_buf_set_name, 0, 'levelcode://' .. (c.argv[1]) .. '/' .. s.id)
  vim.cmd('startinsert')
  cb(nil, { job = job, buf = vim.api.nvim_get_current_buf() })
end

---Runs one action on a session (a SessionSummary, or at least {id, title}).
---@param s table
---@param action string one of M.actions_for(s)
---@param cb fun(err: any, result: any)|nil
function M.act(s, action, cb)
  cb = cb or function() end
  local title = s.title or s.id
  if action == 'Continue in tool' or (action == M.continue_action(s)) then
    if not M.continue_action(s) then
      util.error('“' .. title .. '” was not imported from a tool that can continue it.')
      return cb({ message = 'no tool to continue in' }, nil)
    end
    M.continue_in_tool(s, cb)
  elseif action == M.HANDOFF then
    M.handoff(s, cb)
  elseif action == 'Resume' then
    resume.resume({ id = s.id, title = title }, cb)
  elseif action == 'Open transcript' then
    transcript.open({ id = s.id, title = title, bytes = s.bytes }, cb)
  elseif action == 'Rename' then
    M.rename(s, nil, cb)
  elseif action == 'Pin' or action == 'Unpin' or action == 'Pin or unpin' then
    local pinned = action == 'Pin' or (action == 'Pin or unpin' and not s.pinned)
    session.pin(s.id, pinned, function(err, result)
      if err then
        util.error('could not ' .. (pinned and 'pin' or 'unpin') .. ' “' .. title .. '”: ' .. util.err_text(err))
      else
        util.notify((pinned and 'pinned “' or 'unpinned “') .. title .. '”.')
      end
      cb(err, result)
    end)
  elseif action == 'Archive' or action == 'Unarchive' or action == 'Archive or unarchive' then
    local archived = action == 'Archive' or (action == 'Archive or unarchive' and not s.archived)
    session.archive(s.id, archived, function(err, result)
      if err then
        util.error('could not ' .. (archived and 'archive' or 'unarchive') .. ' “' .. title .. '”: ' .. util.err_text(err))
      elseif archived then
        util.notify('archived “' .. title .. '”: out of History, still found by :LevelSearch; :LevelHistory archived lists it.')
      else
        util.notify('unarchived “' .. title .. '”: back in History.')
      end
      cb(err, result)
    end)
  elseif action == 'Fork from turn…' then
    lifecycle.fork(s, cb)
  elseif action == 'Delete' then
    lifecycle.delete(s, cb)
  elseif action == 'Export as Markdown' then
    transcript.export({ id = s.id, title = title }, cb)
  else
    cb({ message = 'unknown action ' .. tostring(action) }, nil)
  end
end

---Renames a session; asks for the title (vim.ui.input) when `title` is nil.
---@param s table {id, title}
---@param title string|nil
---@param cb fun(err: any, result: any)|nil
function M.rename(s, title, cb)
  cb = cb or function() end
  local function apply(t)
    if not t or vim.trim(t) == '' then
      return cb({ code = 'cancelled', message = 'cancelled' }, nil)
    end
    session.rename(s.id, vim.trim(t), function(err, result)
      if err then
        util.error('could not rename: ' .. util.err_text(err))
      else
        util.notify('renamed to “' .. result.title .. '”.')
      end
      cb(err, result)
    end)
  end
  if title then
    return apply(title)
  end
  -- The full title, never a shortened one; nothing for a chat with no title yet.
  local untitled = s.title == nil or s.title == vim.NIL or s.title == ''
  ui.input({ prompt = 'Rename chat: ', default = untitled and '' or util.full_title(s) }, apply)
end

---Offers the actions for one session.
---@param s table
---@param cb fun(err: any, result: any)|nil
function M.choose_action(s, cb)
  -- The prompt is the row's detail (the other editors' tooltip): the device it was created on.
  local device = type(s.device) == 'string' and s.device ~= '' and (' (created on ' .. s.device .. ')') or ''
  ui.select(M.actions_for(s), { prompt = (s.title or s.id) .. device .. ' ', kind = 'levelcode.action' }, function(choice)
    if not choice then
      return cb and cb({ code = 'cancelled', message = 'cancelled' }, nil)
    end
    M.act(s, choice, cb)
  end)
end

---What the empty History says: where chats of other tools come from.
M.IMPORT_HINT = ':LevelImport brings in your chats from Claude Code, Codex, Gemini CLI and other AI tools.'

---Titles of every session listed lately, by id: a fork's row names its parent with them.
local known_titles = {}

---Lists (main or archived) and remembers the titles.
local function list(opts, cb)
  session.list(opts, function(err, result)
    if not err and result then
      for id, t in pairs(util.titles(result.sessions or {})) do
        known_titles[id] = t
      end
    end
    cb(err, result)
  end)
end

---Shows the project's sessions in vim.ui.select, then the actions for the chosen one.
---`opts.archived`: the archived sessions instead.
---@param opts {all: boolean|nil, archived: boolean|nil, prompt: string|nil, on_choice: fun(s: table|nil)|nil}|nil
function M.pick(opts)
  opts = opts or {}
  list({ all = opts.all, archived = opts.archived }, function(err, result)
    if err then
      return util.error('could not list sessions: ' .. util.err_text(err))
    end
    local sessions = result.sessions or {}
    if #sessions == 0 then
      if opts.archived then
        return util.notify('no archived chats for ' .. config.project() .. '.')
      end
      return util.notify('no chats saved for ' .. config.project() .. ' yet. ' .. M.IMPORT_HINT)
    end
    local live = session.live()
    ui.select(sessions, {
      prompt = opts.prompt or (opts.archived and 'LevelCode archived chats ' or 'LevelCode History '),
      kind = 'levelcode.history',
      format_item = function(s)
        return util.format_session(s, live, known_titles)
      end,
    }, function(s)
      if opts.on_choice then
        return opts.on_choice(s)
      end
      if s then
        M.choose_action(s)
      end
    end)
  end)
end

-- The History buffer ------------------------------------------------------------------------------

local view = {
  ---@type integer|nil
  buf = nil,
  ---@type table<integer, table> the session each line shows, by line number (headers: none)
  by_line = {},
  ---@type boolean the archived chats instead of History (`A` switches)
  archived = false,
  rendering = false,
  again = false,
}

local ns = vim.api.nvim_create_namespace('levelcode_history')

---The buffer's lines for a list: a title line, the keys, then a header line whenever the
---sidecar's group changes (rows come in History's order, so each group is drawn once) and one
---line a chat. Returns the lines, the session of each line, and the header lines.
---@return string[], table<integer, table>, integer[]
local function layout(sessions, archived)
  local name = archived and 'LevelCode archived chats' or 'LevelCode History'
  local n = #sessions
  local lines = {
    string.format('%s · %s · %d chat%s', name, config.project(), n, n == 1 and '' or 's'),
    '<CR> actions  o open  R resume  f fork  c continue in its tool  r rename  p pin  a '
      .. (archived and 'unarchive' or 'archive')
      .. '  D delete  u undo  e export  A '
      .. (archived and 'History' or 'archived')
      .. '  q close',
  }
  local by_line, headers = {}, {}
  local live, group = session.live(), nil
  for _, s in ipairs(sessions) do
    local v = util.view_of(s)
    if v and v.group ~= group then
      group = v.group
      table.insert(lines, '')
      table.insert(lines, v.groupLabel or v.group)
      table.insert(headers, #lines)
    end
    table.insert(lines, (v and '  ' or '') .. util.format_session(s, live, known_titles, { grouped = v ~= nil }))
    by_line[#lines] = s
  end
  if n == 0 then
    table.insert(lines, '')
    if archived then
      table.insert(lines, 'No archived chats for this project.')
    else
      table.insert(lines, 'No chats saved for this project yet.')
      table.insert(lines, M.IMPORT_HINT)
    end
  end
  return lines, by_line, headers
end

---The id of the chat on the cursor's line in each window showing `buf`.
local function cursors(buf)
  local out = {}
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == buf then
      local s = view.by_line[vim.api.nvim_win_get_cursor(win)[1]]
      out[win] = s and s.id or false
    end
  end
  return out
end

---Draws `lines`, then puts each window's cursor back on the chat it was on (a pin, a rename
---or another process's change re-sorts the rows: the cursor stays with its chat, never with a
---line number that now shows another one).
local function draw(buf, lines, by_line, headers)
  local before = cursors(buf)
  util.set_lines(buf, lines)
  view.by_line = by_line
  vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
  vim.api.nvim_buf_add_highlight(buf, ns, 'Title', 0, 0, -1)
  vim.api.nvim_buf_add_highlight(buf, ns, 'Comment', 1, 0, -1)
  for _, l in ipairs(headers) do
    vim.api.nvim_buf_add_highlight(buf, ns, 'Label', l - 1, 0, -1)
  end
  for win, id in pairs(before) do
    if id and vim.api.nvim_win_is_valid(win) then
      for l, s in pairs(by_line) do
        if s.id == id then
          vim.api.nvim_win_set_cursor(win, { l, 0 })
        end
      end
    end
  end
end

local function render()
  local buf = view.buf
  if not buf or not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  if view.rendering then
    view.again = true
    return
  end
  view.rendering = true
  local archived = view.archived
  list({ archived = archived }, function(err, result)
    view.rendering = false
    if not vim.api.nvim_buf_is_valid(buf) then
      return
    end
    if err then
      local name = archived and 'LevelCode archived chats' or 'LevelCode History'
      draw(buf, { name .. ' · ' .. config.project(), 'could not list sessions: ' .. util.err_text(err) }, {}, {})
    else
      draw(buf, layout(result.sessions or {}, archived))
    end
    if view.again then
      view.again = false
      render()
    end
  end)
end

---The session on the cursor's line of the History buffer, read when the key is pressed: the
---chat that line shows on the screen at that moment.
---@return table|nil
local function under_cursor()
  return view.by_line[vim.api.nvim_win_get_cursor(0)[1]]
end

local function map(buf, lhs, fn, desc)
  vim.keymap.set('n', lhs, function()
    local s = under_cursor()
    if s then
      fn(s)
    end
  end, { buffer = buf, nowait = true, silent = true, desc = desc })
end

---Opens (or shows again) the History buffer in the current window; it refreshes on every change.
---@param archived boolean|nil the archived chats (`A` in the buffer switches back and forth)
---@return integer buf
function M.open_buffer(archived)
  view.archived = archived == true
  local buf = view.buf
  if not buf or not vim.api.nvim_buf_is_valid(buf) then
    buf = vim.api.nvim_create_buf(false, true)
    view.buf = buf
    vim.bo[buf].buftype = 'nofile'
    vim.bo[buf].bufhidden = 'hide'
    vim.bo[buf].swapfile = false
    pcall(vim.api.nvim_buf_set_name, buf, 'levelcode://history')
    vim.bo[buf].filetype = 'levelcode-history'
    vim.bo[buf].modifiable = false
    map(buf, '<CR>', M.choose_action, 'LevelCode: actions')
    for _, k in ipairs({
      { 'o', 'Open transcript' },
      { 'R', 'Resume' },
      { 'r', 'Rename' },
      { 'p', 'Pin or unpin' },
      { 'a', 'Archive or unarchive' },
      { 'f', 'Fork from turn…' },
      { 'e', 'Export as Markdown' },
      { 'c', 'Continue in tool' },
    }) do
      local key, action = k[1], k[2]
      map(buf, key, function(s)
        M.act(s, action)
      end, 'LevelCode: ' .. action:lower())
    end
    map(buf, 'D', function(s)
      lifecycle.confirm_delete(s)
    end, 'LevelCode: delete (asks first)')
    vim.keymap.set('n', 'u', function()
      lifecycle.undo()
    end, { buffer = buf, nowait = true, silent = true, desc = 'LevelCode: undo the last delete' })
    vim.keymap.set('n', 'A', function()
      view.archived = not view.archived
      render()
    end, { buffer = buf, nowait = true, silent = true, desc = 'LevelCode: archived chats / History' })
    vim.keymap.set('n', 'q', function()
      local alt = vim.fn.bufnr('#')
      if alt > 0 and alt ~= buf and vim.api.nvim_buf_is_loaded(alt) then
        vim.api.nvim_set_current_buf(alt)
      elseif #vim.api.nvim_list_wins() > 1 then
        vim.api.nvim_win_close(0, false)
      else
        vim.api.nvim_set_current_buf(vim.api.nvim_create_buf(true, false))
      end
    end, { buffer = buf, nowait = true, silent = true, desc = 'LevelCode: close History' })
  end
  vim.api.nvim_set_current_buf(buf)
  -- A long title wraps under itself (indented past the row's margin), never off the screen.
  -- (:setlocal: a transcript opened in this window later keeps the user's own settings.)
  vim.cmd('setlocal wrap linebreak breakindent breakindentopt=shift:4 cursorline')
  render()
  return buf
end

---Redraws the History buffer if it is open.
function M.refresh()
  render()
end

rpc.on_change(function(change)
  if change.change == 'deleted' and change.id == session.live() then
    session.set_live(nil)
  end
  if view.buf and vim.api.nvim_buf_is_valid(view.buf) then
    render()
  end
end)

-- Search ------------------------------------------------------------------------------------------

---A search result's row: the chat's title, its date, and its best snippet, cut so the row fits
---the window ("Idempotent refunds · 2026-12-02 · …use a Redis SET NX key per refund…").
---@param r table a SearchSession
---@return string
function M.search_row(r)
  local best = (r.hits or {})[1] or {}
  local t = util.parse_iso(r.t or best.t)
  local head = util.printable(util.one_line(r.title or r.sessionId)) .. (t and (' · ' .. os.date('%Y-%m-%d', t)) or '')
  local hits = #(r.hits or {})
  local snippet = util.printable(util.one_line(best.snippet or ''))
  if snippet == '' then
    return ui.cut(head, ui.row_width())
  end
  local more = hits > 1 and string.format(' (+%d)', hits - 1) or ''
  return ui.cut(head .. ' · ' .. snippet, ui.row_width() - #more) .. more
end

---Searches the project's chats (session/search): one row a chat, best first, with its best
---snippet, in a picker; or (`opts.quickfix`, `:LevelSearch!`) one quickfix entry a chat at its
---best hit's line of the session file.
---@param query string
---@param opts {quickfix: boolean|nil, all: boolean|nil}|nil
---@param cb fun(err: any, results: table[]|nil)|nil
function M.search(query, opts, cb)
  opts = opts or {}
  cb = cb or function() end
  session.search(query, { all = opts.all }, function(err, result)
    if err then
      util.error('search failed: ' .. util.err_text(err))
      return cb(err, nil)
    end
    local found = result.sessions or {}
    if #found == 0 then
      util.notify('nothing found for “' .. query .. '”.')
      return cb(nil, found)
    end
    if opts.quickfix then
      local items = {}
      for _, r in ipairs(found) do
        local best = (r.hits or {})[1] or {}
        table.insert(items, {
          filename = r.file or best.file,
          lnum = (tonumber(best.seq) or 0) + 2, -- line 1 is the meta line; seq 0 is line 2
          text = util.printable(util.one_line(r.title or r.sessionId)) .. ' · ' .. util.printable(util.one_line(best.snippet or '')),
        })
      end
      vim.fn.setqflist({}, ' ', { title = 'LevelCode search: ' .. query, items = items })
      vim.cmd('copen')
      return cb(nil, found)
    end
    local total = tonumber(result.total) or #found
    ui.select(found, {
      prompt = string.format('LevelCode search: %s (%d chat%s) ', query, total, total == 1 and '' or 's'),
      kind = 'levelcode.search',
      format_item = M.search_row,
    }, function(r)
      if r then
        M.choose_action({ id = r.sessionId, title = r.title })
      end
    end)
    cb(nil, found)
  end)
end

return M
