-- levelcode.session: the live session of this Neovim (the one a chat plugin appends to) and the
-- plain operations on sessions: new, append, seal, list, read, rename, pin, archive, delete,
-- restore, fork, relink, retention, export, search.
-- Appends are queued so that a chat plugin's turns reach the file in the order they were given,
-- and the first append creates the live session when there is none.
-- One writer per chat across windows: each append carries `expectedSeq`, the seq the chat's next
-- event had when this Neovim last wrote or resumed it. When another window continued the chat
-- meanwhile (SessionConflict, or SessionLocked while it holds the chat), nothing is written and
-- the user is told "This chat is continuing in another window" and offered a copy: a fork at the
-- last turn this Neovim saw, the refused events appended to it, and the copy made live. The
-- queue waits for the answer, so later appends follow the earlier ones.
-- Every function is asynchronous and reports through `cb(err, result)`.
-- Depends on levelcode.rpc, levelcode.config and levelcode.util; knows nothing of windows.

local uv = vim.uv or vim.loop -- vim.uv arrived in 0.10; vim.loop is its 0.7 name
local rpc = require('levelcode.rpc')
local config = require('levelcode.config')
local util = require('levelcode.util')
local ui = require('levelcode.ui')

local M = {}

---@type string|nil
local live_id = nil

---Appends wait here and go out one batch at a time, in call order. Each remembers the chat it
---was made for (`gen`): new() bumps `generation`, so appends made before New Chat still land in
---the old chat and appends made after it wait for the new one.
---@type {events: table[], cb: fun(err: any, result: any)|nil, gen: integer}[]
local queue = {}
local appending = false
local generation = 0
---@type integer the generation live_id belongs to
local live_generation = 0
---@type integer|nil the seq the live session's next event gets, as this Neovim last saw it (sent as expectedSeq)
local live_next = nil

---The sidecar's error codes for "another window continued this chat" (protocol.md, "Errors").
local SESSION_LOCKED, SESSION_CONFLICT = -33004, -33013

---The session this Neovim is chatting in (nil before the first `new`, `append` or resume).
---@return string|nil
function M.live()
  return live_id
end

---@param id string|nil
---@param next_seq integer|nil the seq its next event gets (nil: the next append goes unchecked)
function M.set_live(id, next_seq)
  live_id = id
  live_generation = generation
  live_next = next_seq
end

---The seq the live session's next event gets, as this Neovim last saw it (nil when unknown).
---@return integer|nil
function M.live_next()
  return live_next
end

local function long()
  return { timeout = config.get().request_timeout * 10 }
end

---Creates a session for the project and makes it live. Does not seal the previous one.
---@param cb fun(err: any, result: {id: string, project: string, createdAt: string}|nil)
function M.create(cb)
  local params = { project = config.project() }
  if config.get().model then
    params.model = config.get().model
  end
  local gen = generation
  rpc.request('session/new', params, function(err, result)
    if not err and result then
      live_id = result.id
      live_generation = gen
      live_next = 0
    end
    cb(err, result)
  end)
end

local pump

---True while appends of older generations are queued or in flight (what new() waits for).
local function older_pending(gen)
  if appending and appending < gen then
    return true
  end
  for _, item in ipairs(queue) do
    if item.gen < gen then
      return true
    end
  end
  return false
end

pump = function()
  if appending or #queue == 0 then
    return
  end
  local item = queue[1]
  if item.gen ~= live_generation then
    return -- made after a New Chat that has not created its session yet: pumped again then
  end
  table.remove(queue, 1)
  appending = item.gen
  local function done(err, result)
    appending = false
    if item.cb then
      item.cb(err, result)
    elseif err then
      util.error('could not save the chat: ' .. util.err_text(err))
    end
    pump()
  end
  local function send()
    local id = live_id
    local params = { id = id, events = item.events, expectedSeq = live_next }
    rpc.request('session/append', params, function(err, result)
      if not err and result and id == live_id then
        live_next = result.lastSeq + 1
      end
      local code = type(err) == 'table' and err.code or nil
      if code == SESSION_CONFLICT or code == SESSION_LOCKED then
        return M.continued_elsewhere(id, err, item.events, done)
      end
      done(err, result)
    end)
  end
  if live_id then
    send()
  else
    M.create(function(err)
      if err then
        return done(err, nil)
      end
      send()
    end)
  end
end

---Another window continued chat `id` (its append `err` was SessionConflict or SessionLocked):
---says so and offers a copy (a fork at the last turn this Neovim saw, `err.data.turn`; a new
---chat when it saw none), with `events` appended to it and the copy made live. `done(err,
---result)` gets the copy's append, or the original error when the user declines.
---@param id string
---@param err table
---@param events table[]
---@param done fun(err: any, result: any)
function M.continued_elsewhere(id, err, events, done)
  local data = type(err.data) == 'table' and err.data or {}
  local turn = type(data.turn) == 'number' and data.turn or nil
  local choices = { 'Open a copy', 'Cancel' }
  ui.select(choices, {
    prompt = 'This chat is continuing in another window: your last message was not added to it. ',
    kind = 'levelcode.conflict',
  }, function(choice)
    if choice ~= choices[1] then
      return done(err, nil)
    end
    local function into(copy)
      rpc.request('session/append', { id = copy.id, events = events }, function(aerr, result)
        if aerr then
          return done(aerr, nil)
        end
        if live_id == id then
          live_id = copy.id
          live_next = result.lastSeq + 1
        end
        util.notify('continuing in a copy of the chat (' .. copy.id .. '); the original goes on in the other window.')
        pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'LevelCodeContinuedInCopy', modeline = false })
        done(nil, result)
      end)
    end
    local function made(ferr, copy)
      if ferr then
        util.error('could not open a copy: ' .. util.err_text(ferr))
        return done(ferr, nil)
      end
      into(copy)
    end
    if turn == 0 then
      local params = { project = config.project() }
      if config.get().model then
        params.model = config.get().model
      end
      rpc.request('session/new', params, made)
    else
      M.fork(id, turn, nil, made)
    end
  end)
end

---Appends events to the live session (creating it first if needed), in call order.
---@param events table[] events such as {kind = 'user', content = 'hello'}; `t` is stamped by the sidecar
---@param cb fun(err: any, result: any)|nil
function M.append(events, cb)
  assert(type(events) == 'table', 'levelcode.append: events must be a list of events')
  if #events == 0 then
    if cb then
      cb(nil, { appended = 0 })
    end
    return
  end
  table.insert(queue, { events = events, cb = cb, gen = generation })
  pump()
end

---Seals a session (a title if it has none, a `sealed` event, the lock released).
---@param id string
---@param cb fun(err: any, result: any)
function M.seal(id, cb)
  rpc.request('session/seal', { id = id }, cb, long())
end

---The flag file that remembers "Previous chat saved to History." was shown.
local function told_file()
  return vim.fn.stdpath('data') .. '/levelcode/told-new-chat'
end

local function tell_once(msg)
  local f = told_file()
  if uv.fs_stat(f) then
    return
  end
  vim.fn.mkdir(vim.fn.fnamemodify(f, ':h'), 'p')
  vim.fn.writefile({ os.date('!%Y-%m-%dT%H:%M:%SZ') }, f)
  util.notify(msg)
end

---New chat: seals the live session (if any) and starts a new one. Appends made before this call
---still go to the old chat; appends made after it go to the new one.
---@param cb fun(err: any, result: {id: string, previous: table|nil}|nil)|nil
function M.new(cb)
  cb = cb or function(err)
    if err then
      util.error('could not start a new chat: ' .. util.err_text(err))
    end
  end
  generation = generation + 1
  local gen = generation
  local previous -- the chat being left: known once the appends made before this call have landed
  local function start(sealed)
    if live_id == previous then
      live_id = nil
    end
    M.create(function(err, result)
      if err then
        live_generation = gen -- the next append creates the session itself
        pump()
        return cb(err, nil)
      end
      pump()
      if sealed and sealed.titleSource ~= 'none' then
        tell_once('Previous chat saved to History.')
      end
      cb(nil, { id = result.id, previous = sealed })
    end)
  end
  local function after_older()
    if older_pending(gen) then
      return vim.defer_fn(after_older, 20)
    end
    previous = live_id
    if not previous then
      return start(nil)
    end
    M.seal(previous, function(err, sealed)
      if err then
        util.warn('could not seal the previous chat: ' .. util.err_text(err))
      end
      start(sealed)
    end)
  end
  after_older()
end

---Lists sessions, pinned first, then newest first. `opts.project` defaults to the current
---project; `opts.all` lists every project; `opts.archived` lists the archived sessions instead.
---@param opts {project: string|nil, all: boolean|nil, limit: integer|nil, archived: boolean|nil}|nil
---@param cb fun(err: any, result: {sessions: table[], problems: table[]}|nil)
function M.list(opts, cb)
  opts = opts or {}
  local params = { limit = opts.limit or config.get().history.limit }
  if opts.archived then
    params.archived = true
  end
  if opts.all then
    params.all = true
  else
    params.project = opts.project or config.project()
  end
  rpc.request('session/list', params, cb)
end

---@param id string
---@param window {tail: integer|nil, from: integer|nil, to: integer|nil}|nil
---@param cb fun(err: any, result: any)
function M.read(id, window, cb)
  local params = vim.tbl_extend('force', { id = id }, window or {})
  rpc.request('session/read', params, cb, long())
end

---@param id string
---@param title string
---@param cb fun(err: any, result: any)
function M.rename(id, title, cb)
  rpc.request('session/rename', { id = id, title = title }, cb)
end

---Pins (first in History) or unpins a session: an event appended to its file.
---@param id string
---@param pinned boolean
---@param cb fun(err: any, result: any)
function M.pin(id, pinned, cb)
  rpc.request('session/pin', { id = id, pinned = pinned }, cb)
end

---Archives (out of History, still searched) or unarchives a session: an event appended to its file.
---@param id string
---@param archived boolean
---@param cb fun(err: any, result: any)
function M.archive(id, archived, cb)
  rpc.request('session/archive', { id = id, archived = archived }, cb)
end

---Moves the session file to the OS trash.
---@param id string
---@param cb fun(err: any, result: any)
function M.delete(id, cb)
  rpc.request('session/delete', { id = id }, function(err, result)
    if not err and id == live_id then
      live_id = nil
    end
    cb(err, result)
  end)
end

---Brings a session `delete` moved to the trash back to its place in the store.
---@param id string
---@param cb fun(err: any, result: {id: string, project: string, path: string}|nil)
function M.restore(id, cb)
  rpc.request('session/restore', { id = id }, cb)
end

---A new session holding turns 1 to `at_turn` of another (all of them when nil), owned by this
---sidecar; `project` for a session listed with `movedFrom` (the listed folder).
---@param id string
---@param at_turn integer|nil
---@param project string|nil
---@param cb fun(err: any, result: {id: string, project: string, forkedFrom: string, turn: integer}|nil)
function M.fork(id, at_turn, project, cb)
  rpc.request('session/fork', { id = id, atTurn = at_turn, project = project }, cb, long())
end

---Makes the sessions of folder `from` the sessions of `to` (a dry run moves nothing).
---@param from string
---@param to string
---@param dry_run boolean
---@param cb fun(err: any, result: {sessions: table[]}|nil)
function M.relink(from, to, dry_run, cb)
  rpc.request('session/relink', { from = from, to = to, dryRun = dry_run }, cb, long())
end

---Applies the retention rules of the configuration to the current project: a dry run answers
---the plan only; `delete` moves what `keep` and `max_age_days` drop to the trash instead of
---archiving it.
---@param opts {dry_run: boolean|nil, delete: boolean|nil}
---@param cb fun(err: any, result: {done: table[], skipped: table[], settings: table}|nil)
function M.retention(opts, cb)
  local init = config.init_options()
  local r = init.retention or {}
  local params = {
    project = config.project(),
    dryRun = opts.dry_run == true,
    delete = opts.delete == true,
    autoArchiveDays = init.autoArchiveDays,
    keep = r.keep or 0,
    maxAgeDays = r.maxAgeDays or 0,
  }
  rpc.request('session/retention', params, cb, long())
end

---@param id string
---@param format 'markdown'|'json'
---@param cb fun(err: any, result: {content: string}|nil)
function M.export(id, format, cb)
  rpc.request('session/export', { id = id, format = format or 'markdown' }, cb, long())
end

---@param query string
---@param opts {all: boolean|nil, limit: integer|nil}|nil
---@param cb fun(err: any, result: any)
function M.search(query, opts, cb)
  opts = opts or {}
  local params = { query = query, limit = opts.limit or 100 }
  if opts.all then
    params.all = true
  else
    params.project = config.project()
  end
  rpc.request('session/search', params, cb, long())
end

return M
