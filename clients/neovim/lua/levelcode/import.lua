-- levelcode.import: `:LevelImport [tool]`, the chats of other AI tools (Claude Code, Codex,
-- Gemini CLI, ...) brought into History from inside Neovim.
--   * without a tool: a dry run (session/import {dryRun}) finds the tools on this machine and
--     their chats; vim.ui.select offers "All of them" and each tool with its count.
--   * the import itself: session/import with a workDoneToken; its $/progress reports show in the
--     command line ("importing Claude Code… 12 of 40 source files"), replacing each other.
--   * running `:LevelImport` again during an import offers to cancel it ($/cancelRequest: what
--     was imported stays).
--   * the end: one notice, per tool ("Claude Code: 12 new, 3 updated"), and the problems.
-- Depends on levelcode.rpc, levelcode.ui and levelcode.util.

local rpc = require('levelcode.rpc')
local ui = require('levelcode.ui')
local util = require('levelcode.util')

local M = {}

---The AI tools the running sidecar knows (its capability's `tools`: {id, label, continueIn,
---handoff?}); empty when it is not running. The plugin keeps no list of its own.
---@return table[]
function M.tools()
  local server = rpc.server()
  return (server and type(server.tools) == 'table') and server.tools or {}
end

---@param t table a ToolCounts (or a tool name)
---@return string
function M.label(t)
  local name = type(t) == 'table' and t.tool or t
  if type(t) == 'table' and type(t.label) == 'string' then
    return t.label
  end
  for _, known in ipairs(M.tools()) do
    if known.id == name and type(known.label) == 'string' then
      return known.label
    end
  end
  return tostring(name)
end

local function plural(n, word)
  return string.format('%d %s%s', n, word, n == 1 and '' or 's')
end

---The import in flight: {tool, cancel}, or nil.
---@type table|nil
local running = nil
local next_token = 0

---@return table|nil the import in flight ({tool})
function M.running()
  return running
end

---One tool's line of the closing notice: "Claude Code: 12 new, 3 updated, 40 already here".
---@param t table ToolCounts
---@return string
function M.tool_line(t)
  local parts = {}
  if (t.imported or 0) > 0 then
    table.insert(parts, plural(t.imported, 'new chat'))
  end
  if (t.updated or 0) > 0 then
    table.insert(parts, tostring(t.updated) .. ' updated')
  end
  if (t.unchanged or 0) > 0 then
    table.insert(parts, tostring(t.unchanged) .. ' already in History')
  end
  if (t.problems or 0) > 0 then
    table.insert(parts, plural(t.problems, 'problem'))
  end
  if #parts == 0 then
    table.insert(parts, 'nothing to import')
  end
  return M.label(t) .. ': ' .. table.concat(parts, ', ')
end

---What the closing notice says of a finished import (session/import's result).
---@param r table
---@return string, integer level
function M.summary(r)
  local lines = {}
  for _, t in ipairs(r.tools or {}) do
    if (t.found or 0) > 0 or (t.problems or 0) > 0 then
      table.insert(lines, M.tool_line(t))
    end
  end
  local level = util.levels.INFO
  local head = string.format('imported %s, updated %s.', plural(r.imported or 0, 'chat'), tostring(r.updated or 0))
  if #(r.unreadable or {}) > 0 or (r.failed or 0) > 0 then
    level = util.levels.WARN
    for _, f in ipairs(r.unreadable or {}) do
      table.insert(lines, 'could not read ' .. util.printable(f))
    end
    if (r.failed or 0) > 0 then
      table.insert(lines, plural(r.failed, 'chat') .. ' could not be written to the store')
    end
  end
  for i, p in ipairs(r.problems or {}) do
    if i > 3 then
      table.insert(lines, string.format('… and %d more problems (levelcode-sessions import --json lists them)', #r.problems - 3))
      break
    end
    table.insert(lines, util.printable(vim.fn.fnamemodify(p.path or '', ':t')) .. ': ' .. util.printable(p.message or ''))
  end
  return head .. (#lines > 0 and ('\n' .. table.concat(lines, '\n')) or ''), level
end

---Imports `tool` ('all' for every tool found) with progress in the command line.
---@param tool string
---@param cb fun(err: any, result: table|nil)
local function start(tool, cb)
  next_token = next_token + 1
  local token = 'levelcode-import-' .. next_token
  local handle = {}
  running = { tool = tool }
  -- Named when said: the label is the sidecar's, known once it has started.
  local function label()
    return tool == 'all' and 'chats of other AI tools' or M.label(tool)
  end
  rpc.on_progress(token, function(value)
    if running and running.tool == tool and type(value) == 'table' and value.kind ~= 'end' then
      local pct = tonumber(value.percentage)
      ui.echo(string.format('importing %s…%s%s', label(), value.message and (' ' .. value.message) or '', pct and string.format(' (%d%%)', pct) or ''))
    end
  end)
  ui.echo('importing ' .. label() .. '…')
  rpc.request('session/import', { tool = tool, workDoneToken = token }, function(err, r)
    rpc.on_progress(token, nil)
    running = nil
    ui.echo('')
    if err then
      if type(err) == 'table' and err.code == -32800 then
        util.notify('import of ' .. label() .. ' cancelled; what was imported before stays in History.')
        return cb(err, nil)
      end
      util.error('could not import ' .. label() .. ': ' .. util.err_text(err))
      return cb(err, nil)
    end
    local msg, level = M.summary(r)
    util.notify(msg, level)
    require('levelcode.history').refresh()
    cb(nil, r)
  end, { timeout = 60 * 60 * 1000, handle = handle })
  -- handle.cancel exists once the request is sent (after the sidecar has started).
  running.cancel = function()
    handle.wanted = true -- sent as soon as the request is, if it is not yet
    if handle.cancel then
      handle.cancel()
    end
  end
end

---Offers to cancel the import in flight. The tool is named by the sidecar's label: when the
---import was asked for before the sidecar had started, this waits for it to be up (its start).
local function offer_cancel(cb)
  local r = running
  if not rpc.server() then
    rpc.ensure_sync()
  end
  local label = r.tool == 'all' and 'chats of other AI tools' or M.label(r.tool)
  ui.confirm('Importing ' .. label .. '. ', 'Cancel the import', function(ok)
    if ok and running == r and r.cancel then
      r.cancel()
    end
    cb(nil, nil)
  end)
end

---:LevelImport [tool]. Without a tool, lists what a dry run finds and asks which to import.
---@param tool string|nil an importer name ('claude-code', 'codex', ...) or 'all'
---@param cb fun(err: any, result: table|nil)|nil
function M.run(tool, cb)
  cb = cb or function() end
  if running then
    return offer_cancel(cb)
  end
  if tool and tool ~= '' then
    return start(tool, cb)
  end
  ui.echo('looking for chats of other AI tools on this machine…')
  rpc.request('session/import', { dryRun = true }, function(err, r)
    ui.echo('')
    if err then
      util.error('could not look for chats to import: ' .. util.err_text(err))
      return cb(err, nil)
    end
    local found = {}
    local total = 0
    for _, t in ipairs(r.tools or {}) do
      if (t.found or 0) > 0 then
        table.insert(found, t)
        total = total + (t.imported or 0) + (t.updated or 0)
      end
    end
    if #found == 0 then
      util.notify('found no chats of other AI tools on this machine (Claude Code, Codex, Gemini CLI, Cursor, opencode, …).')
      return cb(nil, r)
    end
    local items = {}
    if #found > 1 then
      table.insert(items, { tool = 'all', text = string.format('All of them · %s new or updated', plural(total, 'chat')) })
    end
    for _, t in ipairs(found) do
      local fresh = (t.imported or 0) + (t.updated or 0)
      table.insert(items, {
        tool = t.tool,
        text = string.format('%s · %s found · %d new or updated', M.label(t), plural(t.found, 'file'), fresh),
      })
    end
    ui.select(items, {
      prompt = 'Import chats from ',
      kind = 'levelcode.import',
      format_item = function(it)
        return it.text
      end,
    }, function(choice)
      if not choice then
        return cb({ code = 'cancelled', message = 'cancelled' }, nil)
      end
      start(choice.tool, cb)
    end)
  end, { timeout = 10 * 60 * 1000 })
end

return M
