-- levelcode.util: small helpers shared by the other modules: user messages (one prefix, through
-- vim.notify so that nvim-notify/noice take over), relative times, the one-line History entry,
-- and turning an RPC error into a sentence.
-- Pure Lua over the Neovim 0.7.2 API; requires no other levelcode module.

local M = {}

M.levels = vim.log.levels

---Tells the user something, prefixed so they know where it comes from.
---@param msg string
---@param level integer|nil vim.log.levels.*
---@param opts table|nil more vim.notify options (nvim-notify's `timeout`: how long it shows)
function M.notify(msg, level, opts)
  vim.notify('LevelCode: ' .. msg, level or vim.log.levels.INFO, vim.tbl_extend('force', { title = 'LevelCode' }, opts or {}))
end

---@param msg string
function M.warn(msg)
  M.notify(msg, vim.log.levels.WARN)
end

---@param msg string
function M.error(msg)
  M.notify(msg, vim.log.levels.ERROR)
end

---Seconds between local time and UTC at `t` (os.time reads a date table as local time).
local function utc_offset(t)
  local utc = os.date('!*t', t)
  ---@diagnostic disable-next-line: param-type-mismatch
  utc.isdst = false
  return os.difftime(t, os.time(utc))
end

---Parses `2026-07-28T09:12:33.120Z` (or with a +hh:mm offset) to epoch seconds; nil if unreadable.
---@param iso string|nil
---@return integer|nil
function M.parse_iso(iso)
  if type(iso) ~= 'string' then
    return nil
  end
  local y, mo, d, h, mi, s, rest = iso:match('^(%d+)-(%d+)-(%d+)T(%d+):(%d+):(%d+)%.?%d*(.*)$')
  if not y then
    return nil
  end
  local as_local = os.time({
    year = tonumber(y),
    month = tonumber(mo),
    day = tonumber(d),
    hour = tonumber(h),
    min = tonumber(mi),
    sec = tonumber(s),
    isdst = false,
  })
  local t = as_local + utc_offset(as_local)
  local sign, oh, om = rest:match('^([+-])(%d%d):?(%d%d)$')
  if sign then
    local off = (tonumber(oh) * 3600 + tonumber(om) * 60) * (sign == '+' and 1 or -1)
    t = t - off
  end
  return math.floor(t)
end

---"just now", "5 minutes ago", "yesterday", "3 days ago", "on 2026-07-01".
---@param iso string|nil
---@param now integer|nil epoch seconds (default: os.time())
---@return string
function M.relative_time(iso, now)
  local t = M.parse_iso(iso)
  if not t then
    return iso or '?'
  end
  now = now or os.time()
  local ago = now - t
  if ago < 60 then
    return 'just now'
  end
  local function plural(n, unit)
    return string.format('%d %s%s ago', n, unit, n == 1 and '' or 's')
  end
  if ago < 3600 then
    return plural(math.floor(ago / 60), 'minute')
  end
  if ago < 86400 then
    return plural(math.floor(ago / 3600), 'hour')
  end
  local days = math.floor(ago / 86400)
  if days == 1 then
    return 'yesterday'
  end
  if days < 30 then
    return plural(days, 'day')
  end
  return 'on ' .. os.date('%Y-%m-%d', t)
end

---Where a History row stands, beyond its title: pinned, archived, forked from “Title” turn N (or,
---for a sync conflict's fork, continued on <device> after turn N), moved from a folder, open in
---another window, interrupted.
---@param s table a SessionSummary
---@param titles table<string, string>|nil titles by id (to name a fork's parent)
---@return string[]
function M.session_state(s, titles)
  local out = {}
  if s.pinned == true then
    table.insert(out, 'pinned')
  end
  if s.archived == true then
    table.insert(out, 'archived')
  end
  if type(s.forkedFrom) == 'table' and type(s.forkedFrom.device) == 'string' and s.forkedFrom.device ~= '' then
    local at = s.forkedFrom.turn and (' after turn ' .. tostring(s.forkedFrom.turn)) or ''
    table.insert(out, 'continued on ' .. s.forkedFrom.device .. at)
  elseif type(s.forkedFrom) == 'table' and s.forkedFrom.id then
    local parent = titles and titles[s.forkedFrom.id] or s.forkedFrom.id
    local at = s.forkedFrom.turn and (' turn ' .. tostring(s.forkedFrom.turn)) or ''
    table.insert(out, 'forked from “' .. M.printable(parent) .. '”' .. at)
  end
  if type(s.movedFrom) == 'string' and s.movedFrom ~= '' then
    table.insert(out, 'moved from ' .. M.printable(vim.fn.fnamemodify(s.movedFrom, ':~')))
  end
  if type(s.heldBy) == 'table' then
    local who = {}
    if s.heldBy.pid then
      table.insert(who, 'pid ' .. tostring(s.heldBy.pid))
    end
    if type(s.heldBy.host) == 'string' and s.heldBy.host ~= '' then
      table.insert(who, 'on ' .. s.heldBy.host)
    end
    table.insert(out, 'open in another window' .. (#who > 0 and (' (' .. table.concat(who, ' ') .. ')') or ''))
  end
  if s.interrupted == true then
    table.insert(out, 'interrupted')
  end
  return out
end

local NAMED = { ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t', ['\27'] = '\\e' }

---Printing is a boundary (STYLE.md 11d; the sidecar's format/printable.ts has the same rule):
---text from a session (title, model, folder, snippet) is shown with its control characters (C0,
---DEL, C1) and the characters that reorder or hide text (bidi overrides, isolates and marks, line
---and paragraph separators) as visible escapes: \n, \e, \x07, \u202e.
---@param s string|nil
---@return string
function M.printable(s)
  if type(s) ~= 'string' then
    return ''
  end
  local function byte(c)
    return NAMED[c] or string.format('\\x%02x', c:byte())
  end
  local function cp2(c)
    return string.format('\\u%04x', (c:byte(1) % 32) * 64 + c:byte(2) % 64)
  end
  local function cp3(c)
    return string.format('\\u%04x', (c:byte(1) % 16) * 4096 + (c:byte(2) % 64) * 64 + c:byte(3) % 64)
  end
  s = s:gsub('[%z\1-\31\127]', byte)
  s = s:gsub('\194[\128-\159]', cp2):gsub('\216\156', cp2)
  s = s:gsub('\226\128[\142\143\168-\174]', cp3):gsub('\226\129[\166-\169]', cp3)
  return s
end

---The row the sidecar computed for a History entry (`view` of session/list), or nil from a
---sidecar that predates it.
---@param s table a SessionSummary
---@return table|nil
function M.view_of(s)
  return type(s.view) == 'table' and type(s.view.title) == 'string' and s.view or nil
end

---A History entry's title in full, on one line (the sidecar's `view.title`, never cut).
---@param s table a SessionSummary
---@return string
function M.full_title(s)
  local v = M.view_of(s)
  return (v and v.title) or s.title or s.id
end

---One History line: the full title · the sidecar's metadata line (source · time · turns ·
---model) · the state. Under a group header (`opts.grouped`, the History buffer) the state leaves
---out what the header says ("pinned", "archived"). Nothing here computes a time or a group: both
---come from the sidecar's `view` (a sidecar without it gets title · turns · model).
---@param s table a SessionSummary
---@param live_id string|nil the session this Neovim is chatting in
---@param titles table<string, string>|nil titles by id (to name a fork's parent)
---@param opts {grouped: boolean|nil}|nil
---@return string
function M.format_session(s, live_id, titles, opts)
  opts = opts or {}
  local v = M.view_of(s)
  local parts = { M.printable(M.full_title(s)) }
  if v then
    if type(v.description) == 'string' and v.description ~= '' then
      table.insert(parts, M.printable(v.description))
    end
  else
    if type(s.sourceLabel) == 'string' and s.sourceLabel ~= '' then
      table.insert(parts, s.sourceLabel)
    end
    table.insert(parts, string.format('%d turn%s', s.turns or 0, s.turns == 1 and '' or 's'))
    if type(s.model) == 'string' and s.model ~= '' then
      table.insert(parts, M.printable(s.model))
    end
  end
  for _, st in ipairs(M.session_state(s, titles)) do
    if not (opts.grouped and (st == 'pinned' or st == 'archived')) then
      table.insert(parts, st)
    end
  end
  local line = table.concat(parts, ' · ')
  if live_id and s.id == live_id then
    line = line .. ' (current)'
  end
  return line
end

---Titles by id of a list of SessionSummary.
---@param sessions table[]
---@return table<string, string>
function M.titles(sessions)
  local t = {}
  for _, s in ipairs(sessions) do
    t[s.id] = s.title
  end
  return t
end

---An RPC error (LSP error table, string or nil) as one sentence.
---@param err any
---@return string
function M.err_text(err)
  if err == nil then
    return 'unknown error'
  end
  if type(err) == 'string' then
    return err
  end
  if type(err) == 'table' then
    return tostring(err.message or vim.inspect(err))
  end
  return tostring(err)
end

---The first line of a string, trimmed.
---@param s string|nil
---@return string
function M.one_line(s)
  if type(s) ~= 'string' then
    return ''
  end
  return (vim.trim(s):match('^[^\n]*') or '')
end

---A file-name-safe version of a title.
---@param title string
---@return string
function M.slug(title)
  local s = title:lower():gsub('[^%w]+', '-'):gsub('^-+', ''):gsub('-+$', '')
  if s == '' then
    s = 'session'
  end
  return s:sub(1, 60)
end

---A list of strings, split on newlines (buffer lines for nvim_buf_set_lines).
---@param text string
---@return string[]
function M.lines(text)
  local out = vim.split(text, '\n', { plain = true })
  if #out > 1 and out[#out] == '' then
    table.remove(out)
  end
  return out
end

---Replaces the lines of a read-only buffer and leaves it unmodified; nothing when `buf` is gone.
---@param buf integer
---@param lines string[]
function M.set_lines(buf, lines)
  if buf < 0 or not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
end

return M
