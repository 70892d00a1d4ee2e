-- levelcode: chat sessions that survive New Chat, restarts and crashes, for Neovim.
-- This module is the public surface: `setup()`, the Lua API for chat plugins (append, new,
-- resume, list, ...) and the functions behind the user commands of plugin/levelcode.lua.
-- The work is done by the modules it requires lazily: rpc (the sidecar), session, resume,
-- history, transcript. See :help levelcode.

local M = {}

---@param opts levelcode.Config|nil
function M.setup(opts)
  require('levelcode.config').set(opts)
  if package.loaded['levelcode.rpc'] then
    require('levelcode.rpc').apply_config()
  end
end

-- The Lua API for chat plugins ------------------------------------------------------------------

---Appends events to the live session, creating it on first use. Events are stored verbatim;
---`t` is stamped by the sidecar. Order is kept across calls.
---
---  require('levelcode').append({
---    { kind = 'user', content = prompt },
---    { kind = 'assistant', content = blocks, model = 'claude-sonnet-4' },
---  })
---@param events table[]
---@param cb fun(err: any, result: any)|nil
function M.append(events, cb)
  require('levelcode.session').append(events, cb)
end

---New chat: seals the live session (titled, released) and starts a fresh one.
---@param cb fun(err: any, result: {id: string}|nil)|nil
function M.new(cb)
  require('levelcode.session').new(cb)
end

---Resumes a session into the model's context. `opts.id` is required; `opts.last = true`
---resumes the most recent other session instead. `cb(err, result)` gets the sidecar's answer:
---`result.conversation`, `result.agentMessages`, `result.tier`, `result.note`.
---@param opts levelcode.ResumeOpts|{last: boolean}
---@param cb fun(err: any, result: table|nil)|nil
function M.resume(opts, cb)
  opts = opts or {}
  if opts.last then
    return require('levelcode.resume').resume_last(opts, cb)
  end
  require('levelcode.resume').resume(opts, cb)
end

---Lists sessions, newest first: `cb(err, {sessions = {...}, problems = {...}})`.
---@param opts {project: string|nil, all: boolean|nil, limit: integer|nil}|nil
---@param cb fun(err: any, result: table|nil)
function M.list(opts, cb)
  require('levelcode.session').list(opts, cb)
end

---The id of the live session, or nil.
---@return string|nil
function M.current()
  return require('levelcode.session').live()
end

---Registers `fn(change)` for every change to the store ({id, project, change}).
---@param fn fun(change: table)
---@return fun() unsubscribe
function M.on_change(fn)
  return require('levelcode.rpc').on_change(fn)
end

---The result of the last successful resume (what `User LevelCodeResumed` announces), or nil.
---@return table|nil
function M.last_resume()
  return package.loaded['levelcode.resume'] and require('levelcode.resume').last or nil
end

---Stops the sidecar (it starts again on the next request).
function M.stop()
  require('levelcode.rpc').stop()
end

-- What the commands run ---------------------------------------------------------------------------

---:LevelHistory [archived] (picker) and :LevelHistory! [archived] (a History buffer that
---refreshes itself). `archived`: the archived chats instead.
---@param bang boolean|nil
---@param arg string|nil '' or 'archived'
function M.history(bang, arg)
  local archived = arg == 'archived'
  if arg and arg ~= '' and not archived then
    return require('levelcode.util').error('usage: :LevelHistory[!] [archived]')
  end
  if bang then
    require('levelcode.history').open_buffer(archived)
  else
    require('levelcode.history').pick({ archived = archived })
  end
end

---:LevelUndo: brings back the chat the last delete moved to the trash (while its notice shows).
function M.undo()
  require('levelcode.lifecycle').undo()
end

---:LevelRetention[!] [delete]: the dry run; with `!` applied (archiving, or with `delete`,
---trashing what `keep` / `max_age_days` drop, after a confirmation).
---@param bang boolean|nil
---@param arg string|nil '' or 'delete'
function M.retention(bang, arg)
  if arg and arg ~= '' and arg ~= 'delete' then
    return require('levelcode.util').error('usage: :LevelRetention[!] [delete]')
  end
  require('levelcode.lifecycle').retention({ apply = bang == true, delete = arg == 'delete' })
end

---:LevelRelink OLD [NEW]
---@param args string[]
function M.relink(args)
  if #args < 1 or #args > 2 then
    return require('levelcode.util').error('usage: :LevelRelink OLD [NEW]')
  end
  require('levelcode.lifecycle').relink(args[1], args[2])
end

---:LevelResumeLast
function M.resume_last()
  require('levelcode.resume').resume_last()
end

---:LevelNew
function M.new_chat()
  M.new()
end

---Runs `fn(session)` on the live session, else on one the user picks from History.
local function on_live_or_pick(prompt, fn)
  local id = M.current()
  if id then
    return fn({ id = id })
  end
  require('levelcode.history').pick({
    prompt = prompt,
    on_choice = function(s)
      if s then
        fn(s)
      end
    end,
  })
end

---:LevelExport [path]: the live session (or a picked one) as Markdown, to `path` or a new buffer.
---@param path string|nil
function M.export(path)
  local transcript = require('levelcode.transcript')
  local shown = transcript.session_of(0)
  if shown then
    return transcript.export({ id = shown, path = path })
  end
  on_live_or_pick('Export which chat? ', function(s)
    transcript.export({ id = s.id, title = s.title, path = path })
  end)
end

---:LevelRename [title]
---@param title string|nil
function M.rename(title)
  if title == '' then
    title = nil
  end
  on_live_or_pick('Rename which chat? ', function(s)
    require('levelcode.history').rename(s, title)
  end)
end

---:LevelImport [tool]: the chats of other AI tools into History (without a tool: asks which,
---listing what this machine has); progress in the command line.
---@param tool string|nil
function M.import(tool)
  require('levelcode.import').run(tool ~= '' and tool or nil)
end

---:LevelSearch[!] {query}
---@param query string
---@param bang boolean|nil quickfix list instead of a picker
function M.search(query, bang)
  if not query or vim.trim(query) == '' then
    return require('levelcode.util').error('usage: :LevelSearch {query}')
  end
  require('levelcode.history').search(query, { quickfix = bang })
end

return M
