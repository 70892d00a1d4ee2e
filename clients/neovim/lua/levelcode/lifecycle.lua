-- levelcode.lifecycle: what happens to chats over time, as the user meets it.
--   * delete with Undo: a deleted chat goes to the trash at once (session/delete) and the notice
--     says how to bring it back; `undo()` (:LevelUndo, `u` in History) restores it through
--     session/restore for as long as the notice is relevant (`undo_ms`, default 30 s).
--   * fork at a turn: the turns of a chat (session/read) in vim.ui.select, then session/fork
--     {atTurn}, and the new chat is resumed as Resume does.
--   * retention (:LevelRetention): the dry run in a scratch buffer, what would fall out and why;
--     applied with `!` (archiving), deleting only when asked (`delete`), confirmed by count.
--   * relink (:LevelRelink OLD [NEW]): the count of a dry run, a confirmation, then the move.
-- Questions and confirmations go through levelcode.ui (vim.ui.select: the user's picker). Depends on levelcode.session, levelcode.resume,
-- levelcode.rpc, levelcode.config and levelcode.util.

local uv = vim.uv or vim.loop -- vim.uv arrived in 0.10; vim.loop is its 0.7 name
local session = require('levelcode.session')
local rpc = require('levelcode.rpc')
local config = require('levelcode.config')
local util = require('levelcode.util')
local ui = require('levelcode.ui')

local M = {}

local function plural(n, word)
  return string.format('%d %s%s', n, word, n == 1 and '' or 's')
end

---A retention or relink item's title (JSON null arrives as vim.NIL).
local function title_of(item)
  return type(item.title) == 'string' and item.title or item.id
end

-- Delete and Undo ---------------------------------------------------------------------------------

---What the last delete's notice offers to undo: ids, how to name them, and until when (loop ms).
---@type {ids: string[], label: string, expires: integer}|nil
local undoable = nil

---Remembers deleted chats for Undo, and returns the sentence the notice ends with ('' when
---Undo is off or this sidecar cannot restore on this platform).
---@param ids string[]
---@param label string
---@return string
local function offer_undo(ids, label)
  local ms = tonumber(config.get().undo_ms) or 0
  if ms <= 0 or #ids == 0 or not rpc.has_feature('restore') then
    undoable = nil
    return ''
  end
  undoable = { ids = ids, label = label, expires = uv.now() + ms }
  return ' :LevelUndo (or u in History) brings ' .. (#ids == 1 and 'it' or 'them') .. ' back.'
end

---The chats Undo would bring back now, or nil.
---@return {ids: string[], label: string}|nil
function M.pending_undo()
  if undoable and uv.now() <= undoable.expires then
    return undoable
  end
  undoable = nil
  return nil
end

---Moves a chat to the trash and offers Undo.
---@param s table {id, title}
---@param cb fun(err: any, result: any)|nil
function M.delete(s, cb)
  cb = cb or function() end
  local title = s.title or s.id
  session.delete(s.id, function(err, result)
    if err then
      util.error('could not delete “' .. title .. '”: ' .. util.err_text(err))
    else
      local undo = offer_undo({ s.id }, '“' .. title .. '”')
      util.notify('moved “' .. title .. '” to the trash.' .. undo, nil, undo ~= '' and { timeout = config.get().undo_ms } or nil)
    end
    cb(err, result)
  end)
end

---Restores what the last delete moved to the trash (:LevelUndo), while its notice is relevant.
---@param cb fun(err: any, result: any)|nil
function M.undo(cb)
  cb = cb or function() end
  local pending = M.pending_undo()
  if not pending then
    local ms = tonumber(config.get().undo_ms) or 0
    util.notify(ms > 0 and string.format('nothing to undo: no chat was deleted in the last %d s.', math.floor(ms / 1000)) or 'nothing to undo (undo_ms is 0).')
    return cb({ code = 'nothing', message = 'nothing to undo' }, nil)
  end
  undoable = nil
  local left, failed = #pending.ids, {}
  for _, id in ipairs(pending.ids) do
    session.restore(id, function(err)
      if err then
        table.insert(failed, util.err_text(err))
      end
      left = left - 1
      if left > 0 then
        return
      end
      if #failed > 0 then
        util.error('could not bring back ' .. pending.label .. ': ' .. table.concat(failed, '; '))
        return cb({ message = table.concat(failed, '; ') }, nil)
      end
      util.notify('brought back ' .. pending.label .. ' from the trash.')
      cb(nil, { ids = pending.ids })
    end)
  end
end

-- Fork at a turn ----------------------------------------------------------------------------------

---True for a `user` line that starts a turn (not one carrying only tool results).
---@param event table
---@return boolean
local function starts_turn(event)
  if event.kind ~= 'user' then
    return false
  end
  if type(event.content) ~= 'table' then
    return true
  end
  for _, block in ipairs(event.content) do
    local t = type(block) == 'table' and block.type or nil
    if t ~= 'tool_result' and t ~= 'function_call_output' then
      return true
    end
  end
  return #event.content == 0
end

---The first line of a user message's text.
---@param content any
---@return string
local function first_line(content)
  if type(content) == 'string' then
    return util.one_line(content)
  end
  for _, block in ipairs(type(content) == 'table' and content or {}) do
    if type(block) == 'table' and type(block.text) == 'string' and util.one_line(block.text) ~= '' then
      return util.one_line(block.text)
    end
  end
  return '(no text)'
end

---The turns of a read session: {n, text} each.
---@param events {seq: integer, event: table}[]
---@return {n: integer, text: string}[]
function M.turns_of(events)
  local turns = {}
  for _, e in ipairs(events) do
    if type(e.event) == 'table' and starts_turn(e.event) then
      table.insert(turns, { n = #turns + 1, text = first_line(e.event.content) })
    end
  end
  return turns
end

---A turn picker's row: the number, right-aligned to the widest, and the first line of the
---user's message cut to the window's width ("  7  Add a retry to the upload…").
---@param t {n: integer, text: string}
---@param count integer how many turns the picker lists
---@return string
function M.turn_row(t, count)
  local num = string.format('%' .. #tostring(count) .. 'd', t.n)
  return num .. '  ' .. ui.cut(util.printable(t.text), ui.row_width() - #num - 2)
end

---Asks before moving a chat to the trash (the History buffer's `D`): "Move “Title” to the
---trash?", then deletes it with Undo. `cb` gets a 'cancelled' error when the user says no.
---@param s table {id, title}
---@param cb fun(err: any, result: any)|nil
function M.confirm_delete(s, cb)
  cb = cb or function() end
  local title = util.printable(s.title or s.id)
  local undo = (tonumber(config.get().undo_ms) or 0) > 0 and rpc.has_feature('restore') and ' (:LevelUndo brings it back)' or ''
  ui.confirm('Move “' .. title .. '” to the trash?' .. undo .. ' ', 'Move to the trash', function(ok)
    if not ok then
      return cb({ code = 'cancelled', message = 'cancelled' }, nil)
    end
    M.delete(s, cb)
  end)
end

---Forks a chat at the turn the user picks, then resumes the fork (as Resume does).
---@param s table a SessionSummary (or {id, title})
---@param cb fun(err: any, result: any)|nil
function M.fork(s, cb)
  cb = cb or function() end
  local title = s.title or s.id
  session.read(s.id, { from = 0 }, function(err, read)
    if err then
      util.error('could not read “' .. title .. '”: ' .. util.err_text(err))
      return cb(err, nil)
    end
    local turns = M.turns_of(read.events or {})
    if #turns == 0 then
      util.notify('“' .. title .. '” has no turns to fork from yet.')
      return cb({ code = 'empty', message = 'no turns' }, nil)
    end
    ui.select(turns, {
      prompt = 'Fork “' .. title .. '” from turn ',
      kind = 'levelcode.turn',
      format_item = function(t)
        return M.turn_row(t, #turns)
      end,
    }, function(turn)
      if not turn then
        return cb({ code = 'cancelled', message = 'cancelled' }, nil)
      end
      local project = s.movedFrom and s.project or nil
      session.fork(s.id, turn.n, project, function(ferr, forked)
        if ferr then
          util.error('could not fork “' .. title .. '”: ' .. util.err_text(ferr))
          return cb(ferr, nil)
        end
        util.notify(string.format('forked “%s” at turn %d: a new chat; the original is unchanged.', title, tonumber(forked.turn) or turn.n))
        require('levelcode.resume').resume({ id = forked.id, title = title }, cb)
      end)
    end)
  end)
end

-- Retention ---------------------------------------------------------------------------------------

local REASON = {
  idle = function(set)
    return 'idle more than ' .. plural(set.idleDays or 0, 'day')
  end,
  ['max-age'] = function(set)
    return 'older than ' .. plural(set.maxAgeDays or 0, 'day')
  end,
  keep = function(set)
    return 'beyond the newest ' .. tostring(set.keep)
  end,
}

---The dry run as lines of text.
---@param plan table a session/retention result
---@return string[]
function M.plan_lines(plan)
  local set = plan.settings or {}
  local rules = {}
  local fell = set.delete and 'trash' or 'archive'
  if set.idleDays and set.idleDays ~= vim.NIL then
    table.insert(rules, 'idle ' .. plural(set.idleDays, 'day') .. ' → archive')
  end
  if set.maxAgeDays and set.maxAgeDays ~= vim.NIL then
    table.insert(rules, 'older than ' .. plural(set.maxAgeDays, 'day') .. ' → ' .. fell)
  end
  if set.keep and set.keep ~= vim.NIL then
    table.insert(rules, 'keep the newest ' .. tostring(set.keep) .. ' → ' .. fell)
  end
  local lines = {
    string.format('LevelCode retention · %s · %s', config.project(), plan.dryRun and 'dry run: nothing changed' or 'applied'),
    'Rules: ' .. (#rules > 0 and table.concat(rules, ' · ') or 'none (auto_archive_days and retention are off)') .. ' · pinned chats never fall out',
    '',
  }
  local done = plan.done or {}
  for _, item in ipairs(done) do
    local why = REASON[item.reason] and REASON[item.reason](set) or tostring(item.reason)
    local verb = item.action == 'delete' and 'trash' or 'archive'
    table.insert(lines, string.format('%s · %s · %s (last active %s)', verb, title_of(item), why, util.relative_time(item.lastActive)))
  end
  for _, item in ipairs(plan.skipped or {}) do
    table.insert(lines, string.format('left alone · %s · %s', title_of(item), tostring(item.skipped or item.reason)))
  end
  if #done == 0 then
    table.insert(lines, 'Nothing falls out.')
  elseif plan.dryRun then
    table.insert(lines, '')
    table.insert(lines, ':LevelRetention! applies it (archiving); :LevelRetention! delete moves what keep and max_age_days drop to the trash instead.')
  end
  return lines
end

---Shows lines in the `levelcode://retention` scratch buffer (made once, reused).
local function show(lines)
  local buf = vim.fn.bufnr('levelcode://retention')
  if buf < 0 then
    buf = vim.api.nvim_create_buf(false, true)
    vim.bo[buf].buftype = 'nofile'
    vim.bo[buf].bufhidden = 'hide'
    vim.bo[buf].swapfile = false
    pcall(vim.api.nvim_buf_set_name, buf, 'levelcode://retention')
    vim.bo[buf].filetype = 'levelcode-retention'
    vim.keymap.set('n', 'q', '<Cmd>bdelete<CR>', { buffer = buf, nowait = true, silent = true, desc = 'LevelCode: close' })
  end
  util.set_lines(buf, lines)
  vim.api.nvim_set_current_buf(buf)
  return buf
end

---Counts a plan's items by action.
local function counts(plan)
  local c = { archive = 0, delete = 0, ids = {} }
  for _, item in ipairs(plan.done or {}) do
    c[item.action] = (c[item.action] or 0) + 1
    if item.action == 'delete' then
      table.insert(c.ids, item.id)
    end
  end
  return c
end

local function apply(delete, cb)
  session.retention({ dry_run = false, delete = delete }, function(err, plan)
    if err then
      util.error('could not apply retention: ' .. util.err_text(err))
      return cb(err, nil)
    end
    local c = counts(plan)
    local said = {}
    if c.archive > 0 then
      table.insert(said, 'archived ' .. plural(c.archive, 'chat'))
    end
    if c.delete > 0 then
      table.insert(said, 'moved ' .. plural(c.delete, 'chat') .. ' to the trash')
    end
    if #said == 0 then
      util.notify('retention: nothing fell out.')
    else
      local undo = c.delete > 0 and offer_undo(c.ids, plural(c.delete, 'chat')) or ''
      util.notify('retention: ' .. table.concat(said, ', ') .. '.' .. undo, nil, undo ~= '' and { timeout = config.get().undo_ms } or nil)
    end
    util.set_lines(vim.fn.bufnr('levelcode://retention'), M.plan_lines(plan)) -- what was done, if it is open
    cb(nil, plan)
  end)
end

---:LevelRetention[!] [delete]. Without `apply`, shows the dry run. With it, archives what falls
---out; with `delete` too, asks (naming the count) and moves what `keep` / `max_age_days` drop to
---the trash instead.
---@param opts {apply: boolean|nil, delete: boolean|nil}
---@param cb fun(err: any, result: any)|nil
function M.retention(opts, cb)
  cb = cb or function() end
  if not opts.apply then
    return session.retention({ dry_run = true, delete = opts.delete }, function(err, plan)
      if err then
        util.error('could not plan retention: ' .. util.err_text(err))
        return cb(err, nil)
      end
      show(M.plan_lines(plan))
      cb(nil, plan)
    end)
  end
  if not opts.delete then
    return apply(false, cb)
  end
  session.retention({ dry_run = true, delete = true }, function(err, plan)
    if err then
      util.error('could not plan retention: ' .. util.err_text(err))
      return cb(err, nil)
    end
    local c = counts(plan)
    if c.delete > 0 then
      local msg = string.format('Move %s of %s to the trash%s?', plural(c.delete, 'chat'), config.project(), c.archive > 0 and (' and archive ' .. c.archive .. ' more') or '')
      return ui.confirm(msg, 'Move to the trash', function(ok)
        if not ok then
          util.notify('retention: nothing deleted.')
          return cb({ code = 'cancelled', message = 'cancelled' }, nil)
        end
        apply(true, cb)
      end)
    end
    apply(true, cb)
  end)
end

-- Relink ------------------------------------------------------------------------------------------

---A folder as the sidecar wants it: absolute, no trailing slash (it may no longer exist).
local function folder(path)
  local p = vim.fn.fnamemodify(vim.fn.expand(path), ':p')
  if #p > 1 then
    p = p:gsub('/+$', '')
  end
  return p
end

---:LevelRelink OLD [NEW]: the chats recorded under OLD become NEW's (default: this project),
---after a dry run's count and a confirmation.
---@param old string
---@param new string|nil
---@param cb fun(err: any, result: any)|nil
function M.relink(old, new, cb)
  cb = cb or function() end
  local from, to = folder(old), new and folder(new) or config.project()
  session.relink(from, to, true, function(err, plan)
    if err then
      util.error('could not relink ' .. from .. ': ' .. util.err_text(err))
      return cb(err, nil)
    end
    local n = #(plan.sessions or {})
    if n == 0 then
      util.notify('no chats are recorded under ' .. from .. '.')
      return cb(nil, plan)
    end
    local msg = string.format('Move %s of %s to %s?', plural(n, 'chat'), from, to)
    ui.confirm(msg, 'Relink', function(ok)
      if not ok then
        util.notify('relink: nothing moved.')
        return cb({ code = 'cancelled', message = 'cancelled' }, nil)
      end
      session.relink(from, to, false, function(aerr, done)
        if aerr then
          util.error('could not relink ' .. from .. ': ' .. util.err_text(aerr))
          return cb(aerr, nil)
        end
        util.notify(string.format('relinked %s: History of %s lists %s “moved from %s”.', plural(#(done.sessions or {}), 'chat'), to, n == 1 and 'it' or 'them', from))
        cb(nil, done)
      end)
    end)
  end)
end

return M
