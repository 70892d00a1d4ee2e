-- levelcode.rpc: the one connection to the sidecar (`levelcode-sessions serve --stdio`) of this
-- Neovim instance, started with Neovim's own LSP client (vim.lsp.start_client; vim.lsp.start
-- with attach = false on 0.11+, where start_client is deprecated), attached to no buffer.
--
-- It owns the client's lifecycle: start on first use, queue requests until `initialize` has
-- answered, give every request a timeout (no request may hang forever), fail in-flight requests
-- at once when the process dies, and restart it with a notice when it dies unexpectedly (up to
-- `restart.max` times in `restart.window_ms`). `session/didChange` notifications are handed to
-- the listeners registered with `on_change`.
--
-- Neovim 0.7.2 computes a server-to-client request's answer synchronously, so this client
-- advertises no callbacks (`callbacks = {}`): tier-3 resume uses the two-step flow instead.
-- Depends on levelcode.config and levelcode.util only.

local uv = vim.uv or vim.loop -- vim.uv arrived in 0.10; vim.loop is its 0.7 name
local config = require('levelcode.config')
local util = require('levelcode.util')

local M = {}

local NAME = 'levelcode-sessions'
local INIT_TIMEOUT_MS = 20000

---0.11 turned client methods into `client:method()`; older clients have plain closures.
local colon_methods = vim.fn.has('nvim-0.11') == 1

---@param client table
---@param name string
local function call(client, name, ...)
  if colon_methods then
    return client[name](client, ...)
  end
  return client[name](...)
end

local state = {
  ---@type integer|nil
  client_id = nil,
  ready = false,
  ---@type fun(client: table|nil, err: string|nil)[]
  waiting = {},
  ---@type table<integer, fun(err: any, result: any)>
  inflight = {},
  next_ticket = 0,
  ---@type boolean set when Neovim exits (VimLeavePre): no restart then
  stopping = false,
  ---@type integer[] loop times (ms) of unexpected exits
  deaths = {},
  ---@type table|nil capabilities.experimental.levelcodeSessions of the running sidecar
  server = nil,
  ---@type table|nil serverInfo of the running sidecar
  server_info = nil,
  ---@type table|nil the client object on_init was given
  client = nil,
  ---@type fun(change: table)[]
  listeners = {},
  ---@type string|nil why the last start failed
  last_error = nil,
  ---@type integer|nil
  pid = nil,
  ---@type string[]|nil the command the running sidecar was started with
  cmd = nil,
  ---@type table|nil the initializationOptions it was started with
  init_options = nil,
  init_timer = nil,
}

local function flush_waiting(client, err)
  local waiting = state.waiting
  state.waiting = {}
  for _, cb in ipairs(waiting) do
    cb(client, err)
  end
end

local function fail_inflight(msg)
  local inflight = state.inflight
  state.inflight = {}
  for _, finish in pairs(inflight) do
    finish({ code = -32099, message = msg }, nil)
  end
end

local function stop_init_timer()
  if state.init_timer then
    state.init_timer:stop()
    state.init_timer:close()
    state.init_timer = nil
  end
end

local function emit(change)
  for _, fn in ipairs(state.listeners) do
    local ok, e = pcall(fn, change)
    if not ok then
      util.error('a History listener failed: ' .. tostring(e))
    end
  end
  pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'LevelCodeDidChange', modeline = false })
end

local function on_did_change(_, params)
  if type(params) == 'table' and params.id then
    emit(params)
  end
end

---$/progress listeners by workDoneToken (a long request this client started with its own token).
---@type table<string, fun(value: table)>
local progress = {}

local function on_progress(_, params)
  local fn = type(params) == 'table' and progress[params.token]
  if fn then
    local ok, e = pcall(fn, params.value)
    if not ok then
      util.error('a progress listener failed: ' .. tostring(e))
    end
  end
end

---Calls `fn(value)` with every $/progress report ({kind, title, message, percentage}) of the
---request started with `workDoneToken = token`; `fn = nil` stops.
---@param token string
---@param fn fun(value: table)|nil
function M.on_progress(token, fn)
  progress[token] = fn
end

local function exiting()
  return state.stopping or (vim.v.exiting ~= nil and vim.v.exiting ~= vim.NIL)
end

local function on_exit(code, signal, client_id)
  if client_id ~= state.client_id then
    return
  end
  local was_ready = state.ready
  stop_init_timer()
  state.client_id, state.ready, state.server, state.server_info, state.pid, state.client = nil, false, nil, nil, nil, nil
  fail_inflight('the sidecar stopped')
  if not was_ready then
    state.last_error = string.format('the sidecar exited (code %s) before it was ready; see :checkhealth levelcode', tostring(code))
    flush_waiting(nil, state.last_error)
    return
  end
  if exiting() then
    return
  end
  local now = uv.now()
  local window = config.get().restart.window_ms
  local recent = {}
  for _, t in ipairs(state.deaths) do
    if now - t < window then
      table.insert(recent, t)
    end
  end
  table.insert(recent, now)
  state.deaths = recent
  if #recent > config.get().restart.max then
    util.error(
      string.format(
        'the sessions sidecar keeps stopping (exit code %s); not restarting it. The next LevelCode command will try again; see :checkhealth levelcode.',
        tostring(code)
      )
    )
    state.deaths = {}
    return
  end
  util.warn(string.format('the sessions sidecar stopped (exit code %s, signal %s); restarting it.', tostring(code), tostring(signal)))
  M.with_client(function(client)
    if client then
      emit({ change = 'restarted' })
    end
  end)
end

---The capabilities we send: Neovim's own, plus our experimental entry (no callbacks).
local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.experimental = caps.experimental or {}
  caps.experimental.levelcodeSessions = { callbacks = {} }
  return caps
end

local function start()
  local cmd, err = config.command()
  if not cmd then
    state.last_error = err
    flush_waiting(nil, err)
    return
  end
  local cfg = config.get()
  local client_config = {
    name = NAME,
    cmd = cmd,
    -- The sidecar opens no network connection, and Node parses the certificate bundle
    -- NODE_EXTRA_CA_CERTS names at every start, before any of the sidecar runs (protocol.md
    -- "Starting the sidecar"): empty unless cmd_env sets it.
    cmd_env = vim.tbl_extend('force', { NODE_EXTRA_CA_CERTS = '' }, cfg.cmd_env or {}),
    root_dir = config.project(),
    init_options = config.init_options(),
    capabilities = capabilities(),
    handlers = { ['session/didChange'] = on_did_change, ['$/progress'] = on_progress },
    flags = { exit_timeout = 2000 },
    on_init = function(client, result)
      stop_init_timer()
      local exp = result and result.capabilities and result.capabilities.experimental or {}
      state.server = exp.levelcodeSessions or {}
      state.server_info = result and result.serverInfo or {}
      -- Neovim 0.7.2 lists the client (get_client_by_id) only after on_init returns: a request
      -- made by a waiter flushed below must find it here.
      state.client = client
      state.ready = true
      state.last_error = nil
      flush_waiting(client, nil)
    end,
    on_exit = function(code, signal, client_id)
      -- Called from the process's exit callback (a fast event on 0.7.2): defer to the main loop.
      vim.schedule(function()
        on_exit(code, signal, client_id)
      end)
    end,
  }
  local ok, id
  if colon_methods and vim.lsp.start then
    ok, id = pcall(vim.lsp.start, client_config, { attach = false })
  else
    ok, id = pcall(vim.lsp.start_client, client_config)
  end
  if not ok or not id then
    state.last_error = 'cannot start the sidecar `' .. table.concat(cmd, ' ') .. '`: ' .. tostring(ok and 'no client' or id)
    flush_waiting(nil, state.last_error)
    return
  end
  state.client_id = id
  state.cmd = cmd
  state.init_options = client_config.init_options
  local client = vim.lsp.get_client_by_id(id)
  state.pid = client and client.rpc and client.rpc.pid or nil
  state.init_timer = uv.new_timer()
  state.init_timer:start(
    INIT_TIMEOUT_MS,
    0,
    vim.schedule_wrap(function()
      if state.client_id == id and not state.ready then
        stop_init_timer()
        state.last_error = 'the sidecar did not answer initialize in ' .. INIT_TIMEOUT_MS / 1000 .. ' s'
        flush_waiting(nil, state.last_error)
        M.stop()
      end
    end)
  )
end

---Calls `cb(client)` once the sidecar is ready (starting it if needed), or `cb(nil, err)`.
---@param cb fun(client: table|nil, err: string|nil)
function M.with_client(cb)
  if state.ready and state.client_id then
    local client = vim.lsp.get_client_by_id(state.client_id) or state.client
    if client then
      return cb(client, nil)
    end
  end
  table.insert(state.waiting, cb)
  if not state.client_id then
    start()
  end
end

---Sends a request; `cb(err, result)` is called exactly once: with the answer, an error, a
---timeout (the request is then cancelled), or the sidecar's death.
---@param method string
---@param params table
---@param cb fun(err: table|nil, result: any)
---`opts.handle`, a table, gets `cancel()`: $/cancelRequest for this request (the sidecar then
---answers -32800); `handle.wanted = true` set before it is sent cancels it once it is.
---@param opts {timeout: integer|nil, handle: table|nil}|nil
function M.request(method, params, cb, opts)
  opts = opts or {}
  M.with_client(function(client, err)
    if not client then
      return cb({ code = -32099, message = err or 'the sidecar is not running' }, nil)
    end
    state.next_ticket = state.next_ticket + 1
    local ticket = state.next_ticket
    local timer, request_id
    local done = false
    local function finish(e, r)
      if done then
        return
      end
      done = true
      state.inflight[ticket] = nil
      if timer then
        timer:stop()
        timer:close()
      end
      cb(e, r)
    end
    state.inflight[ticket] = finish
    local ok
    ok, request_id = call(client, 'request', method, params, function(e, r)
      finish(e, r)
    end)
    if not ok then
      return finish({ code = -32099, message = 'the sidecar is not running' }, nil)
    end
    if opts.handle then
      opts.handle.cancel = function()
        if not done then
          pcall(call, client, 'cancel_request', request_id)
          -- Neovim's client drops the sidecar's RequestCancelled answer: end it here.
          finish({ code = -32800, message = method .. ' was cancelled' }, nil)
        end
      end
      if opts.handle.wanted then -- cancelled before it could be sent
        opts.handle.cancel()
      end
    end
    local timeout = opts.timeout or config.get().request_timeout
    timer = uv.new_timer()
    timer:start(
      timeout,
      0,
      vim.schedule_wrap(function()
        if done then
          return
        end
        pcall(call, client, 'cancel_request', request_id)
        finish({ code = -32800, message = string.format('%s took longer than %d s', method, timeout / 1000) }, nil)
      end)
    )
  end)
end

---A request waited for with vim.wait (for the health check and for scripts): err, result.
---@param method string
---@param params table
---@param timeout integer|nil milliseconds
---@return table|nil err, any result
function M.request_sync(method, params, timeout)
  timeout = timeout or config.get().request_timeout
  local done, e, r = false, nil, nil
  M.request(method, params, function(err, result)
    done, e, r = true, err, result
  end, { timeout = timeout })
  if not vim.wait(timeout + 1000, function()
    return done
  end, 20) then
    return { message = method .. ' did not answer' }, nil
  end
  return e, r
end

---Waits (vim.wait) until the sidecar is ready; returns the client or nil and the reason.
---@param timeout integer|nil
---@return table|nil client, string|nil err
function M.ensure_sync(timeout)
  local done, c, e = false, nil, nil
  M.with_client(function(client, err)
    done, c, e = true, client, err
  end)
  vim.wait(timeout or INIT_TIMEOUT_MS + 1000, function()
    return done
  end, 20)
  if not done then
    return nil, 'the sidecar did not start in time'
  end
  return c, e
end

---Stops the sidecar (shutdown + exit); it starts again on the next request.
function M.stop()
  local id = state.client_id
  if not id then
    return
  end
  -- Forget it at once: its exit is then not ours to report, and the next request starts anew.
  stop_init_timer()
  state.client_id, state.ready, state.server, state.server_info, state.pid, state.cmd, state.client = nil, false, nil, nil, nil, nil, nil
  fail_inflight('the sidecar was stopped')
  flush_waiting(nil, 'the sidecar was stopped')
  local client = vim.lsp.get_client_by_id(id)
  if client then
    call(client, 'stop')
  elseif vim.lsp.stop_client then
    vim.lsp.stop_client(id)
  end
end

---Stops a running sidecar whose command or start-up options no longer match the configuration
---(after setup() is called again with another `cmd`, `dir`, `auto_archive_days` or `retention`);
---the next request starts the right one.
function M.apply_config()
  if not state.client_id then
    return
  end
  local cmd = config.command()
  if not vim.deep_equal(cmd, state.cmd) or not vim.deep_equal(config.init_options(), state.init_options) then
    M.stop()
  end
end

---Registers a listener for `session/didChange` (and `{change = 'restarted'}` after a restart).
---@param fn fun(change: table)
---@return fun() unsubscribe
function M.on_change(fn)
  table.insert(state.listeners, fn)
  return function()
    for i, f in ipairs(state.listeners) do
      if f == fn then
        table.remove(state.listeners, i)
        return
      end
    end
  end
end

---capabilities.experimental.levelcodeSessions of the running sidecar (nil when not running).
---@return table|nil
function M.server()
  return state.server
end

---serverInfo of the running sidecar ({name, version}).
---@return table|nil
function M.server_info()
  return state.server_info
end

---@param feature string e.g. 'export', 'search', 'didChange'
---@return boolean
function M.has_feature(feature)
  local features = state.server and state.server.features or {}
  return vim.tbl_contains(features, feature)
end

---The sidecar's process id, when known (for :checkhealth and tests).
---@return integer|nil
function M.pid()
  if state.pid then
    return state.pid
  end
  if not state.client_id then
    return nil
  end
  -- Newer clients do not expose the pid: find our node child.
  for _, pid in ipairs(vim.api.nvim_get_proc_children(vim.fn.getpid())) do
    local info = vim.api.nvim_get_proc(pid)
    if info and info.name and info.name:match('node') then
      return pid
    end
  end
  return nil
end

---@return integer|nil
function M.client_id()
  return state.client_id
end

---@return string|nil
function M.last_error()
  return state.last_error
end

local group = vim.api.nvim_create_augroup('levelcode_rpc', { clear = true })
vim.api.nvim_create_autocmd('VimLeavePre', {
  group = group,
  callback = function()
    state.stopping = true
  end,
})

return M
