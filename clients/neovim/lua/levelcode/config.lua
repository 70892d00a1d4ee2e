-- levelcode.config: the plugin's options, their defaults, and how the sidecar command is found.
-- `setup()` in init.lua merges the user's table into these defaults; every other module reads
-- the merged result through `require('levelcode.config').get()`.
-- Depends on nothing but the Neovim 0.7.2 API (no vim.fs: it arrived in 0.8).

local uv = vim.uv or vim.loop -- vim.uv arrived in 0.10; vim.loop is its 0.7 name
local M = {}

---A function the user supplies to summarise the head of a long chat for tier-3 resume.
---It receives what the sidecar wants summarised and calls `done(briefing)` when the model has
---answered (or `done(nil, "reason")` on failure). It may call `done` later: nothing waits on it.
---@alias levelcode.SummarizeFn fun(request: levelcode.SummaryRequest, done: fun(briefing: string|nil, err: string|nil))

---@class levelcode.SummaryRequest
---@field id string              the session being resumed
---@field messages table[]       one piece of the head of the chat, verbatim (provider messages)
---@field instructions string    what the briefing must contain (send it as the system/user prompt)
---@field inputTokens integer|nil estimated size of `messages`
---@field coversThrough integer      last seq the briefing covers (the plugin passes it back)
---@field maxBriefingTokens integer|nil how long the briefing may be
---@field piece {index: integer, count: integer}|nil which call of the resume this is (index from 0); the
---      head of a long chat is summarised in pieces that each fit `summary_window`, the first
---      message of a later piece being the briefing of the pieces before
---@field shortened {toolOutputs: integer, messages: integer}|nil a turn larger than a piece was shortened

---@class levelcode.Config
---@field cmd string[]|nil        the sidecar command; nil: `node <repo>/bin/levelcode-sessions.js serve --stdio`
---@field node string             node executable used by the default `cmd`
---@field dir string|nil          the store root, passed to the sidecar as `--dir` (default: its own default)
---@field cmd_env table<string,string>|nil extra environment for the sidecar
---@field project nil|fun(): string the project folder (default: the current working directory)
---@field model string|nil        the model new sessions start with (recorded in the meta line)
---@field context_window integer  the model's context window in tokens, for resume
---@field summary_window integer|nil the summariser model's window in tokens (default: context_window)
---@field budget_ratio number|nil share of the window resume may spend (sidecar default 0.4)
---@field keep_turns integer|nil  most recent turns kept verbatim by a compacting resume
---@field summarize levelcode.SummarizeFn|nil needed for tier-3 resume (see |levelcode-summarize|)
---@field on_resume nil|fun(result: table) called with every successful resume (for chat plugins)
---@field history levelcode.HistoryConfig
---@field auto_archive_days integer archive chats idle this many days when the sidecar starts (0: off)
---@field retention levelcode.RetentionConfig the rules of :LevelRetention (and of the start-up archive)
---@field undo_ms integer         how long :LevelUndo can bring back a deleted chat (0: no undo)
---@field transcript levelcode.TranscriptConfig
---@field request_timeout integer  milliseconds a request may take before it fails (long ones get 10x)
---@field restart levelcode.RestartConfig

---@class levelcode.HistoryConfig
---@field limit integer           sessions listed at most

---@class levelcode.RetentionConfig
---@field keep integer|nil        the most chats kept per project (nil or 0: no limit)
---@field max_age_days integer|nil the oldest age kept, in days (nil or 0: no limit)

---@class levelcode.TranscriptConfig
---@field large_bytes integer     a session file larger than this opens its end first
---@field tail_events integer     events shown first for a large session

---@class levelcode.RestartConfig
---@field max integer             restarts allowed within `window_ms` before giving up
---@field window_ms integer

---@type levelcode.Config
local defaults = {
  cmd = nil,
  node = 'node',
  dir = nil,
  cmd_env = nil,
  project = nil,
  model = nil,
  context_window = 200000,
  summary_window = nil,
  budget_ratio = nil,
  keep_turns = nil,
  summarize = nil,
  on_resume = nil,
  history = { limit = 200 },
  auto_archive_days = 30,
  retention = { keep = nil, max_age_days = nil },
  undo_ms = 30000,
  transcript = { large_bytes = 512 * 1024, tail_events = 60 },
  request_timeout = 30000,
  restart = { max = 3, window_ms = 60000 },
}

---@type levelcode.Config
local current = vim.deepcopy(defaults)

---Merges user options into the defaults (nested tables are merged, lists replaced).
---@param opts table|nil
function M.set(opts)
  opts = opts or {}
  local expected = {
    cmd = 'table',
    dir = 'string',
    project = 'function',
    summarize = 'function',
    on_resume = 'function',
    context_window = 'number',
    summary_window = 'number',
    auto_archive_days = 'number',
    retention = 'table',
    undo_ms = 'number',
  }
  for key, kind in pairs(expected) do
    if opts[key] ~= nil and type(opts[key]) ~= kind then
      error(string.format('levelcode.setup: `%s` must be a %s, got %s', key, kind, type(opts[key])), 2)
    end
  end
  local merged = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts)
  -- tbl_deep_extend merges list-like tables index by index; a command is replaced whole.
  merged.cmd = opts.cmd and vim.deepcopy(opts.cmd) or nil
  current = merged
end

---The user's time zone for the sidecar's History groups and times: an IANA name when one is
---known ($TZ such as "Europe/Berlin" or ":Europe/Berlin", else the zone /etc/localtime links
---to), else today's UTC offset from os.date('%z') as "+02:00".
---@return string
function M.time_zone()
  local tz = (vim.env.TZ or ''):gsub('^:', '')
  if tz:match('^%a[%w_+-]*/[%w_+/-]+$') or tz == 'UTC' then
    return tz
  end
  local link = uv.fs_readlink('/etc/localtime')
  local name = link and link:match('zoneinfo/(.+)$')
  if tz == '' and name and name:match('^%a[%w_+-]*/[%w_+/-]+$') then
    return name
  end
  local z = os.date('%z')
  local sign, h, m = tostring(z):match('^([+-])(%d%d)(%d%d)$')
  return sign and (sign .. h .. ':' .. m) or '+00:00'
end

---The sidecar's `initializationOptions`: the time zone History is grouped in, auto-archive and
---retention (protocol.md `initialize`). Applied once when the sidecar starts, archiving only
---(it never deletes on its own).
---@return table
function M.init_options()
  local days = math.max(0, math.floor(tonumber(current.auto_archive_days) or 0))
  local r = current.retention or {}
  local retention = {}
  if tonumber(r.keep) and r.keep > 0 then
    retention.keep = math.floor(r.keep)
  end
  if tonumber(r.max_age_days) and r.max_age_days > 0 then
    retention.maxAgeDays = math.floor(r.max_age_days)
  end
  local opts = { autoArchiveDays = days, timeZone = M.time_zone() }
  if next(retention) then
    opts.retention = retention
  end
  return opts
end

---@return levelcode.Config
function M.get()
  return current
end

---The folder this file lives in, symlinks resolved (a `packadd` install is often a symlink
---into the repository, and the bundled sidecar is found relative to the real checkout).
---@return string plugin_root  clients/neovim
function M.plugin_root()
  local source = debug.getinfo(1, 'S').source:gsub('^@', '')
  local real = uv.fs_realpath(source) or source
  return vim.fn.fnamemodify(real, ':p:h:h:h')
end

---The repository's bin/levelcode-sessions.js, when the plugin sits in its checkout.
---@return string|nil
function M.bundled_bin()
  local bin = vim.fn.fnamemodify(M.plugin_root() .. '/../../bin/levelcode-sessions.js', ':p')
  if uv.fs_stat(bin) then
    return bin
  end
  return nil
end

---The sidecar command, with `--dir` appended when `dir` is set.
---@return string[]|nil cmd, string|nil err
function M.command()
  local cmd
  if current.cmd then
    cmd = vim.deepcopy(current.cmd)
  else
    local bin = M.bundled_bin()
    if bin then
      cmd = { current.node, bin, 'serve', '--stdio' }
    elseif vim.fn.executable('levelcode-sessions') == 1 then
      cmd = { 'levelcode-sessions', 'serve', '--stdio' }
    else
      return nil, 'no sidecar: the bundled bin/levelcode-sessions.js is missing and levelcode-sessions is not on PATH; set `cmd`'
    end
  end
  if current.dir then
    table.insert(cmd, '--dir')
    table.insert(cmd, (vim.fn.fnamemodify(current.dir, ':p'):gsub('/$', '')))
  end
  return cmd, nil
end

---The same program as `command()`, running another CLI subcommand (used by the health check).
---No `--dir` is added: pass the store the sidecar reports.
---@param sub string[] e.g. {'doctor', '--json'}
---@return string[]|nil
function M.cli(sub)
  local cmd = M.command()
  if not cmd then
    return nil
  end
  local out = {}
  for _, a in ipairs(cmd) do
    if a == 'serve' then
      break
    end
    table.insert(out, a)
  end
  vim.list_extend(out, sub)
  return out
end

---@return string
function M.project()
  if current.project then
    return current.project()
  end
  return uv.cwd()
end

return M
