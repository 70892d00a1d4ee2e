-- levelcode.transcript: a session as Markdown in Neovim. "Open transcript" shows it in a
-- read-only scratch buffer (filetype=markdown, named after the session); "Export" puts the same
-- Markdown in a new buffer the user can :write, or writes it to a file. In the transcript
-- buffer the export's <details> blocks (tool calls and results) read as one "▸ Tool call: `x`"
-- line each, their bodies folded under it: no HTML on the screen.
--
-- The Markdown is the sidecar's (session/export, the one renderer of the project). A large
-- session shows its end first: the last `transcript.tail_events` events (session/read) in a
-- plain preview, replaced by the full export when it arrives.
-- Depends on levelcode.session, levelcode.rpc, levelcode.config, levelcode.util.

local session = require('levelcode.session')
local rpc = require('levelcode.rpc')
local config = require('levelcode.config')
local util = require('levelcode.util')

local M = {}

---@type table<string, integer> session id -> transcript buffer
local buffers = {}

local function set_lines(buf, lines)
  vim.bo[buf].modifiable = true
  vim.bo[buf].readonly = false
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].readonly = true
  vim.bo[buf].modified = false
end

local ENTITIES = { ['&lt;'] = '<', ['&gt;'] = '>', ['&amp;'] = '&', ['&quot;'] = '"', ['&#39;'] = "'" }

---The export's Markdown made for reading in a buffer: each `<details><summary>S</summary>`
---block (tool calls and results, thinking, system prompts) becomes one line "▸ S", its body
---folded under it; no HTML is left. Lines inside code fences are left as they are.
---@param lines string[]
---@return string[] lines, table<integer, string> folds (foldexpr values by line number)
function M.readable(lines)
  local out, folds = {}, {}
  local fence, depth = nil, 0
  for _, line in ipairs(lines) do
    local run = line:match('^%s*(```+)') or line:match('^%s*(~~~+)')
    if fence then
      if run and run:sub(1, 1) == fence:sub(1, 1) and #run >= #fence and line:match('^%s*[`~]+%s*$') then
        fence = nil
      end
      table.insert(out, line)
      folds[#out] = depth > 0 and tostring(depth) or '0'
    elseif run then
      fence = run
      table.insert(out, line)
      folds[#out] = depth > 0 and tostring(depth) or '0'
    elseif line == '<details>' then
      depth = depth + 1
    elseif line == '</details>' then
      depth = math.max(0, depth - 1)
      if out[#out] == '' then
        folds[#out] = depth > 0 and tostring(depth) or '0' -- the blank line after a block stays open
      end
    elseif line ~= '' or out[#out] ~= '' then -- else the second blank line a dropped <details> left
      local summary = line:match('^<summary>(.*)</summary>$')
      if summary then
        summary = summary:gsub('<code>(.-)</code>', '`%1`'):gsub('&[%w#]+;', ENTITIES)
        table.insert(out, '▸ ' .. summary)
        folds[#out] = '>' .. tostring(math.max(1, depth))
      else
        table.insert(out, line)
        folds[#out] = depth > 0 and tostring(depth) or '0'
      end
    end
  end
  return out, folds
end

---foldexpr values of each transcript buffer (its tool blocks fold under their "▸" line).
---@type table<integer, table<integer, string>>
local fold_levels = {}

---The transcript's foldexpr: `v:lua.require'levelcode.transcript'.foldexpr(v:lnum)`.
---@param lnum integer
---@return string
function M.foldexpr(lnum)
  local levels = fold_levels[vim.api.nvim_get_current_buf()]
  return levels and levels[lnum] or '0'
end

---Shows the Markdown of a session in `buf`, tool blocks folded.
local function show_markdown(buf, text)
  local lines, folds = M.readable(util.lines(text or ''))
  fold_levels[buf] = folds
  set_lines(buf, lines)
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == buf then
      vim.api.nvim_win_call(win, function()
        vim.cmd([[setlocal foldmethod=expr foldexpr=v:lua.require'levelcode.transcript'.foldexpr(v:lnum) foldlevel=0]])
      end)
    end
  end
end

---Moves every window showing `buf` to its last line.
local function to_end(buf)
  local last = vim.api.nvim_buf_line_count(buf)
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == buf then
      vim.api.nvim_win_set_cursor(win, { last, 0 })
    end
  end
end

---Plain text of a message's content (a string or provider content blocks).
local function text_of(content)
  if type(content) == 'string' then
    return content
  end
  if type(content) ~= 'table' then
    return ''
  end
  local parts = {}
  for _, block in ipairs(content) do
    if type(block) == 'string' then
      table.insert(parts, block)
    elseif type(block) == 'table' then
      if type(block.text) == 'string' then
        table.insert(parts, block.text)
      elseif block.type == 'tool_use' then
        table.insert(parts, '_(tool: ' .. tostring(block.name) .. ')_')
      end
    end
  end
  return table.concat(parts, '\n\n')
end

---The quick preview of a window of events (the full Markdown comes from session/export).
---@return string[]
local function preview_lines(title, read)
  local lines = { '# ' .. title, '' }
  local total = read.totalEvents or #read.events
  table.insert(
    lines,
    string.format('_Showing the last %d of %d events; loading the whole transcript…_', #read.events, total)
  )
  for _, item in ipairs(read.events or {}) do
    local e = item.event or {}
    local heading = ({ user = 'User', assistant = 'Assistant', compact = 'Summary' })[e.kind]
    if heading then
      table.insert(lines, '')
      table.insert(lines, '## ' .. heading .. ' · ' .. tostring(e.t or ''))
      table.insert(lines, '')
      vim.list_extend(lines, util.lines(e.kind == 'compact' and (e.briefing or '') or text_of(e.content)))
    end
  end
  return lines
end

---@param id string
---@param title string
---@return integer buf
local function transcript_buffer(id, title)
  local buf = buffers[id]
  if buf and vim.api.nvim_buf_is_valid(buf) then
    return buf
  end
  buf = vim.api.nvim_create_buf(false, true)
  buffers[id] = buf
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  local name = string.format('levelcode://%s/%s.md', id, util.slug(title))
  pcall(vim.api.nvim_buf_set_name, buf, name)
  vim.bo[buf].filetype = 'markdown'
  vim.api.nvim_buf_set_var(buf, 'levelcode_session', id)
  set_lines(buf, { '# ' .. title, '', '_Loading…_' })
  return buf
end

---Opens a session's transcript in a read-only Markdown buffer in the current window.
---@param opts {id: string, title: string|nil, bytes: integer|nil}
---@param cb fun(err: any, buf: integer|nil)|nil
function M.open(opts, cb)
  cb = cb or function() end
  local title = opts.title or opts.id
  local buf = transcript_buffer(opts.id, title)
  vim.api.nvim_set_current_buf(buf)
  local large = opts.bytes == nil or opts.bytes > config.get().transcript.large_bytes

  local function full()
    session.export(opts.id, 'markdown', function(err, result)
      if not vim.api.nvim_buf_is_valid(buf) then
        return cb(err, nil)
      end
      if err then
        util.error('could not load the transcript: ' .. util.err_text(err))
        return cb(err, buf)
      end
      show_markdown(buf, result.content)
      to_end(buf)
      cb(nil, buf)
    end)
  end

  local function tail_then(next_step)
    session.read(opts.id, { tail = config.get().transcript.tail_events }, function(err, read)
      if err then
        if not next_step then
          util.error('could not load the transcript: ' .. util.err_text(err))
          return cb(err, buf)
        end
        return next_step()
      end
      if vim.api.nvim_buf_is_valid(buf) and (not next_step or (read.totalEvents or 0) > #(read.events or {})) then
        set_lines(buf, preview_lines(title, read))
        to_end(buf)
      end
      if next_step then
        return next_step()
      end
      cb(nil, buf)
    end)
  end

  rpc.with_client(function(client, err)
    if not client then
      util.error('could not load the transcript: ' .. util.err_text(err))
      return cb({ message = err }, buf)
    end
    if not rpc.has_feature('export') then
      return tail_then(nil) -- a sidecar without the exporter: the preview is all there is
    end
    if large then
      return tail_then(full)
    end
    full()
  end)
end

---Exports a session as Markdown: to `path` when given, else into a new buffer.
---@param opts {id: string, title: string|nil, path: string|nil}
---@param cb fun(err: any, result: {buf: integer|nil, path: string|nil}|nil)|nil
function M.export(opts, cb)
  cb = cb or function() end
  session.export(opts.id, 'markdown', function(err, result)
    if err then
      util.error('could not export: ' .. util.err_text(err))
      return cb(err, nil)
    end
    local lines = util.lines(result.content or '')
    if opts.path and opts.path ~= '' then -- a file keeps the export as it is (HTML folds on GitHub)
      local path = vim.fn.fnamemodify(vim.fn.expand(opts.path), ':p')
      local ok, werr = pcall(vim.fn.writefile, lines, path)
      if not ok or werr ~= 0 then
        util.error('could not write ' .. path .. ': ' .. tostring(werr))
        return cb({ message = 'write failed' }, nil)
      end
      util.notify('exported to ' .. path)
      return cb(nil, { path = path })
    end
    local buf = vim.api.nvim_create_buf(true, false)
    vim.api.nvim_set_current_buf(buf)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.bo[buf].filetype = 'markdown'
    vim.bo[buf].modified = false
    vim.api.nvim_win_set_cursor(0, { 1, 0 })
    util.notify('exported “' .. (opts.title or opts.id) .. '” to a new buffer (:write it to keep it).')
    cb(nil, { buf = buf })
  end)
end

-- An open transcript follows its session: appended turns and renames redraw it (from any process).
rpc.on_change(function(change)
  local buf = change.id and buffers[change.id]
  if not buf or not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  if change.change == 'appended' or change.change == 'renamed' then
    local last = vim.api.nvim_buf_line_count(buf)
    local followed = false
    for _, win in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_buf(win) == buf and vim.api.nvim_win_get_cursor(win)[1] == last then
        followed = true
      end
    end
    session.export(change.id, 'markdown', function(err, result)
      if err or not vim.api.nvim_buf_is_valid(buf) then
        return
      end
      show_markdown(buf, result.content)
      if followed then
        to_end(buf)
      end
    end)
  end
end)

---The session a transcript buffer shows, if any.
---@param buf integer|nil
---@return string|nil
function M.session_of(buf)
  local ok, id = pcall(vim.api.nvim_buf_get_var, buf or 0, 'levelcode_session')
  return ok and id or nil
end

return M
