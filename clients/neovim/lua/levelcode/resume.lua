-- levelcode.resume: resuming a session into the model's context, as the user sees it.
--
--   session/resume ──► tier 1/2: done (say in plain words how: the whole chat, or from a summary)
--        │
--        ├─ needsConfirmation: ask "Resume from summary" / "Start fresh instead" (vim.ui.select),
--        │                      then resume again with confirm = true, or start a new chat
--        ├─ a summary is needed (the two-step flow, for clients like this one that cannot answer
--        │  session/summarize asynchronously): call the user's `summarize(request, done)` for
--        │  the piece asked for, send session/compact {id, briefing, coversThrough}, which
--        │  answers the next piece's needsSummary (again) or, after the last, the resumed context
--        └─ readOnly (another window owns it): offer "Open a copy" / "View transcript"
--
-- The result (conversation, agentMessages, tier, note) goes to the caller's callback, to the
-- `on_resume` option and to `User LevelCodeResumed` (its data in `require('levelcode').last_resume()`).
-- Depends on levelcode.session, levelcode.rpc, levelcode.config, levelcode.util.

local rpc = require('levelcode.rpc')
local config = require('levelcode.config')
local session = require('levelcode.session')
local util = require('levelcode.util')
local ui = require('levelcode.ui')

local M = {}

---@type table|nil the last successful resume's result
M.last = nil

---@class levelcode.ResumeOpts
---@field id string                 the session to resume
---@field title string|nil          shown in the message (History passes it)
---@field copy boolean|nil          resume a fresh copy instead (for a session another window owns)
---@field context_window integer|nil defaults to the `context_window` option
---@field summary_window integer|nil defaults to the `summary_window` option (else context_window)
---@field budget_ratio number|nil
---@field keep_turns integer|nil
---@field confirm boolean|nil       the user already agreed to a costly summary
---@field quiet boolean|nil         no messages (the callback still gets everything)

---How a resume went, in the user's words (the sidecar's `tier` 1, 2, 3 never reaches them).
local HOW = {
  [1] = 'the whole chat',
  [2] = 'from a summary and the recent turns',
  [3] = 'from a new summary and the recent turns',
}

local function long()
  return { timeout = config.get().request_timeout * 10 }
end

---Formats 51234 as "51k".
local function ktokens(n)
  if type(n) ~= 'number' then
    return '?'
  end
  if n >= 1000 then
    return string.format('%dk', math.floor(n / 1000 + 0.5))
  end
  return tostring(n)
end

---What the sidecar wants summarised in the two-step flow (`needsSummary` of the resume answer).
---@param r table a session/resume result
---@return table|nil
local function summary_request(r)
  local s = r.needsSummary
  if type(s) == 'table' and s.coversThrough ~= nil then
    return s
  end
  return nil
end

local function params_of(opts)
  local cfg = config.get()
  local p = { id = opts.id, contextWindow = opts.context_window or cfg.context_window }
  local sw = opts.summary_window or cfg.summary_window
  if sw then
    p.summaryWindow = sw
  end
  local ratio = opts.budget_ratio or cfg.budget_ratio
  local keep = opts.keep_turns or cfg.keep_turns
  if ratio then
    p.budgetRatio = ratio
  end
  if keep then
    p.keepTurns = keep
  end
  if opts.copy then
    p.copy = true
  end
  if opts.confirm then
    p.confirm = true
  end
  return p
end

local function finish(opts, result, cb, seen)
  if not result.readOnly and not seen then
    -- The seq its appends expect (one writer per chat across windows), read while this sidecar
    -- holds the chat; without it the first append goes unchecked.
    return session.read(result.id, { tail = 0 }, function(_, read)
      finish(opts, result, cb, { next_seq = type(read) == 'table' and read.totalEvents or nil })
    end)
  end
  if not result.readOnly then
    local previous = session.live()
    session.set_live(result.id, seen.next_seq)
    if previous and previous ~= result.id then
      -- Switching chats is New Chat's first half: the one left behind is sealed and released.
      session.seal(previous, function(err)
        if err and not opts.quiet then
          util.warn('could not seal the previous chat: ' .. util.err_text(err))
        end
      end)
    end
  end
  M.last = result
  if not opts.quiet then
    local name = opts.title and ('“' .. opts.title .. '” ') or ''
    local msg = string.format('resumed %s— %s.', name, HOW[result.tier] or HOW[3])
    if type(result.note) == 'string' and result.note ~= '' then
      msg = msg .. ' ' .. result.note
    end
    if result.forkedFrom then
      msg = msg .. ' (a copy of ' .. result.forkedFrom .. ')'
    end
    util.notify(msg)
  end
  local hook = config.get().on_resume
  if hook then
    local ok, e = pcall(hook, result)
    if not ok then
      util.error('on_resume failed: ' .. tostring(e))
    end
  end
  pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'LevelCodeResumed', modeline = false })
  cb(nil, result)
end

local function fail(opts, msg, err, cb)
  if not opts.quiet then
    util.error(msg)
  end
  cb(err or { message = msg }, nil)
end

---The two-step compaction, one piece at a time: summarise the piece with the user's function,
---record its briefing (session/compact), and go on with the next piece it answers, until the
---last answers the resumed context. A failure keeps the pieces recorded before it: resuming
---again goes on from there.
local function two_step(opts, result, need, cb)
  local summarize = config.get().summarize
  if not summarize then
    return fail(
      opts,
      'this chat no longer fits the model\'s context window and needs a summary: set `summarize` in require("levelcode").setup{} (see :help levelcode-summarize). Its full transcript is in History.',
      { code = 'no-summarize', message = 'summarize is not configured' },
      cb
    )
  end
  local piece = type(need.piece) == 'table' and need.piece or { index = 0, count = 1 }
  local request = {
    id = result.id,
    messages = need.messages or {},
    instructions = need.instructions or '',
    inputTokens = need.inputTokens,
    coversThrough = need.coversThrough,
    maxBriefingTokens = need.maxBriefingTokens,
    piece = piece,
    shortened = need.shortened,
  }
  if not opts.quiet then
    if (piece.count or 1) > 1 then
      util.notify(string.format('summarising part %d of %d of the earlier chat (about %s tokens)…', piece.index + 1, piece.count, ktokens(need.inputTokens)))
    else
      util.notify(string.format('summarising the earlier part of the chat (about %s tokens)…', ktokens(need.inputTokens)))
    end
  end
  local kept = (piece.index or 0) > 0
      and string.format('; the %d parts summarised before are kept, and resuming again goes on from there.', piece.index)
    or '; the session is unchanged.'
  local answered = false
  local function done(briefing, err)
    if answered then
      return
    end
    answered = true
    vim.schedule(function()
      if type(briefing) ~= 'string' or vim.trim(briefing) == '' then
        return fail(opts, 'the summary failed (' .. tostring(err or 'no briefing') .. ')' .. kept, nil, cb)
      end
      local params = { id = result.id, briefing = briefing, coversThrough = need.coversThrough }
      rpc.request('session/compact', params, function(cerr, compacted)
        if cerr then
          return fail(opts, 'could not record the summary: ' .. util.err_text(cerr), cerr, cb)
        end
        if type(compacted) ~= 'table' or not compacted.tier then
          return fail(opts, 'could not record the summary: the sidecar sent no resumed context', nil, cb)
        end
        local next_need = summary_request(compacted)
        if next_need then
          return two_step(opts, compacted, next_need, cb)
        end
        finish(opts, compacted, cb)
      end, long())
    end)
  end
  local ok, returned = pcall(summarize, request, done)
  if not ok then
    return done(nil, returned)
  end
  if type(returned) == 'string' then
    done(returned)
  end
end

local function ask_consent(opts, result, cb)
  local need = result.needsConfirmation
  local calls = tonumber(need.calls) or 1
  local prompt = string.format(
    'Resuming this chat needs a summary of about %s tokens of it, made by your model in %s (the threshold is %s). ',
    ktokens(need.inputTokens),
    calls == 1 and '1 call' or (tostring(calls) .. ' calls'),
    ktokens(need.threshold)
  )
  local choices = { 'Resume from summary', 'Start fresh instead' }
  ui.select(choices, { prompt = prompt, kind = 'levelcode.consent' }, function(choice)
    if choice == choices[1] then
      M.resume(vim.tbl_extend('force', opts, { confirm = true }), cb)
    elseif choice == choices[2] then
      session.new(function(err, fresh)
        if err then
          return fail(opts, 'could not start a new chat: ' .. util.err_text(err), err, cb)
        end
        if not opts.quiet then
          util.notify('started a fresh chat; the old one stays in History.')
        end
        cb(nil, { fresh = true, id = fresh.id })
      end)
    else
      cb({ code = 'cancelled', message = 'cancelled' }, nil)
    end
  end)
end

local function offer_copy(opts, result, cb)
  local held = result.heldBy and result.heldBy.pid and (' (process ' .. tostring(result.heldBy.pid) .. ')') or ''
  local choices = { 'Open a copy', 'View transcript', 'Cancel' }
  ui.select(choices, {
    prompt = 'This chat is open in another window' .. held .. '. ',
    kind = 'levelcode.readonly',
  }, function(choice)
    if choice == choices[1] then
      M.resume(vim.tbl_extend('force', opts, { copy = true }), cb)
    elseif choice == choices[2] then
      require('levelcode.transcript').open({ id = opts.id, title = opts.title })
      cb(nil, result)
    else
      cb({ code = 'cancelled', message = 'cancelled' }, nil)
    end
  end)
end

---Resumes a session. `cb(err, result)`: result is the sidecar's session/resume answer
---(id, tier, conversation, agentMessages, note, ...), or `{fresh = true, id}` when the user chose
---to start fresh instead of paying for a summary.
---@param opts levelcode.ResumeOpts
---@param cb fun(err: any, result: table|nil)|nil
function M.resume(opts, cb)
  assert(type(opts) == 'table' and type(opts.id) == 'string', 'levelcode.resume: opts.id (a session id) is required')
  cb = cb or function() end
  rpc.request('session/resume', params_of(opts), function(err, result)
    if err then
      local data = type(err) == 'table' and err.data or nil
      if type(data) == 'table' and data.tier == 3 then
        if rpc.has_feature('resume.compact') and not opts.copy then
          -- A sidecar with the two-step flow refuses tier 3 only for a session another window
          -- owns (it cannot append the summary there): offer a copy, which it can.
          return offer_copy(opts, { readOnly = true }, cb)
        end
        return fail(
          opts,
          string.format(
            'this chat needs a summary of about %s tokens to fit the model\'s window, and this sidecar cannot ask Neovim for one (%s). Its full transcript is in History.',
            ktokens(data.inputTokens),
            util.err_text(err)
          ),
          err,
          cb
        )
      end
      return fail(opts, 'could not resume: ' .. util.err_text(err), err, cb)
    end
    if type(result) ~= 'table' then
      return fail(opts, 'could not resume: the sidecar sent no result', nil, cb)
    end
    if result.needsConfirmation then
      return ask_consent(opts, result, cb)
    end
    local need = summary_request(result)
    if need then
      if result.readOnly then
        return offer_copy(opts, result, cb)
      end
      return two_step(opts, result, need, cb)
    end
    if result.readOnly and not opts.copy then
      return offer_copy(opts, result, cb)
    end
    finish(opts, result, cb)
  end, long())
end

---Resumes the project's most recent session other than the live one (the `--continue` analogue).
---@param opts table|nil extra levelcode.ResumeOpts (no id)
---@param cb fun(err: any, result: table|nil)|nil
function M.resume_last(opts, cb)
  opts = opts or {}
  cb = cb or function() end
  session.list({ limit = 10 }, function(err, listed)
    if err then
      util.error('could not list sessions: ' .. util.err_text(err))
      return cb(err, nil)
    end
    local live = session.live()
    for _, s in ipairs(listed.sessions or {}) do
      if s.id ~= live then
        return M.resume(vim.tbl_extend('force', opts, { id = s.id, title = s.title }), cb)
      end
    end
    util.notify('no earlier chat in this project yet.')
    cb({ code = 'empty', message = 'no session to resume' }, nil)
  end)
end

return M
