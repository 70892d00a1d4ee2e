-- levelcode.health: `:checkhealth levelcode`. Reports the Neovim version, the sidecar command,
-- whether the sidecar starts and answers `initialize`, its version and protocol, the store path
-- and the store's health (`levelcode-sessions doctor --json` on that store).
-- Uses vim.health on 0.8+ (start/ok/... on 0.10+, report_* before) and the `health` module on
-- 0.7. Depends on levelcode.config and levelcode.rpc.

local uv = vim.uv or vim.loop -- vim.uv arrived in 0.10; vim.loop is its 0.7 name

local M = {}

local function reporter()
  local h = vim.health
  if h == nil or (h.start == nil and h.report_start == nil) then
    h = require('health')
  end
  return {
    start = h.start or h.report_start,
    ok = h.ok or h.report_ok,
    info = h.info or h.report_info,
    warn = h.warn or h.report_warn,
    error = h.error or h.report_error,
  }
end

local function version_string()
  local ok, v = pcall(vim.version)
  if ok and type(v) == 'table' and v.major then
    return string.format('%d.%d.%d', v.major, v.minor, v.patch)
  end
  return (vim.fn.execute('version'):match('NVIM v([%d%.]+)') or '?')
end

function M.check()
  local r = reporter()
  local config = require('levelcode.config')

  r.start('Neovim')
  local v = version_string()
  if vim.fn.has('nvim-0.7.2') == 1 then
    r.ok('Neovim ' .. v .. ' (0.7.2 or newer is supported)')
  else
    r.error('Neovim ' .. v .. ' is too old: LevelCode needs 0.7.2 or newer')
  end

  r.start('Sidecar')
  local cmd, cmd_err = config.command()
  if not cmd then
    r.error(cmd_err or 'no sidecar command', { 'Set `cmd` in require("levelcode").setup{}, or install levelcode-sessions on PATH' })
    return
  end
  r.info('Command: ' .. table.concat(cmd, ' '))
  if vim.fn.executable(cmd[1]) ~= 1 then
    r.error(cmd[1] .. ' is not executable', { 'Install Node.js 20 or newer, or set `node` / `cmd`' })
    return
  end
  if cmd[1] == config.get().node then
    local out = vim.fn.system({ cmd[1], '--version' })
    local major = tonumber((out or ''):match('^v(%d+)'))
    if major and major >= 20 then
      r.ok('Node.js ' .. vim.trim(out))
    else
      r.warn('Node.js ' .. vim.trim(out or '?') .. ': the sidecar needs Node.js 20 or newer')
    end
    local bin = config.bundled_bin()
    if bin and cmd[2] == bin then
      local main = vim.fn.fnamemodify(bin, ':h:h') .. '/dist/cli/main.js'
      if uv.fs_stat(main) then
        r.ok('Bundled sidecar: ' .. bin)
      else
        r.error('The bundled sidecar is not built (' .. main .. ' is missing)', {
          'Run `npm ci && npm run build` in ' .. vim.fn.fnamemodify(bin, ':h:h'),
        })
        return
      end
    end
  end

  local rpc = require('levelcode.rpc')
  local client, err = rpc.ensure_sync()
  if not client then
    r.error('The sidecar does not start: ' .. tostring(err), { 'Run the command above in a shell to see its error', 'The LSP log (:lua print(vim.lsp.get_log_path())) has its stderr' })
    return
  end
  local info = rpc.server_info() or {}
  local server = rpc.server() or {}
  r.ok(string.format('The sidecar starts: %s %s, protocol version %s', tostring(info.name or 'levelcode-sessions'), tostring(info.version or '?'), tostring(server.version or '?')))
  r.info('Features: ' .. table.concat(server.features or {}, ', '))
  if server.didChange then
    r.ok('History refreshes on changes from other processes (' .. server.didChange .. ')')
  else
    r.warn('The sidecar does not report store changes: an open History will not refresh by itself')
  end

  if vim.tbl_contains(server.features or {}, 'resume.compact') then
    if config.get().summarize then
      r.ok('Chats too long for your model resume from a summary your `summarize` function makes')
    else
      r.info('Chats too long for your model need a summary to resume: set `summarize` in setup() (:help levelcode-summarize)')
    end
  else
    r.warn('This sidecar has no two-step compaction (resume.compact): chats too long for the model cannot be resumed from Neovim')
  end

  local features = server.features or {}
  if vim.tbl_contains(features, 'lifecycle') then
    local cfg, init = config.get(), config.init_options()
    local rules = {}
    table.insert(rules, init.autoArchiveDays > 0 and ('archive chats idle ' .. init.autoArchiveDays .. ' days') or 'auto-archive off')
    local keep = init.retention and init.retention.keep
    local age = init.retention and init.retention.maxAgeDays
    if keep then
      table.insert(rules, 'keep the newest ' .. keep)
    end
    if age then
      table.insert(rules, 'none older than ' .. age .. ' days')
    end
    r.ok('At start-up the sidecar applies: ' .. table.concat(rules, ', ') .. ' (archiving only; :LevelRetention shows what would fall out)')
    if vim.tbl_contains(features, 'restore') and (tonumber(cfg.undo_ms) or 0) > 0 then
      r.ok(string.format(':LevelUndo brings a deleted chat back for %d s', math.floor(cfg.undo_ms / 1000)))
    else
      r.info('No undo after a delete (undo_ms is 0, or this platform keeps no searchable trash); deleted chats are in the OS trash')
    end
  else
    r.warn('This sidecar has no pins, archive or retention (lifecycle)')
  end

  r.start('Store')
  local store = server.store
  if type(store) ~= 'string' then
    r.error('The sidecar reported no store path')
    return
  end
  r.info('Store: ' .. store)
  if vim.fn.isdirectory(store) == 1 and vim.fn.filewritable(store) == 2 then
    r.ok('The store folder exists and is writable')
  else
    r.error('The store folder ' .. store .. ' is missing or not writable')
  end
  local e, listed = rpc.request_sync('session/list', { all = true, limit = 1 })
  if e then
    r.error('session/list failed: ' .. tostring(e.message or e))
  elseif listed.problems and #listed.problems > 0 then
    r.warn(string.format('%d unreadable part(s) in the store, e.g. %s: %s', #listed.problems, tostring(listed.problems[1].file), tostring(listed.problems[1].message)))
  else
    r.ok('session/list reads the store')
  end
  local doctor = config.cli({ 'doctor', '--json', '--dir', store })
  if doctor then
    local out = vim.fn.system(doctor)
    local ok, report = pcall(vim.json.decode, out)
    if not ok or type(report) ~= 'table' then
      r.warn('`doctor` gave no report: ' .. vim.trim(out or ''):sub(1, 200))
    elseif report.ok then
      r.ok(string.format('doctor: %d session(s) in %d project(s), no problems', report.sessions or 0, report.projects or 0))
    else
      local first = report.findings and report.findings[1]
      r.warn(
        string.format('doctor: %d finding(s)%s', #(report.findings or {}), first and (', e.g. ' .. tostring(first.message)) or ''),
        { 'Run `' .. table.concat(doctor, ' '):gsub('%-%-json', '--fix') .. '` to repair caches and locks' }
      )
    end
  end
end

return M
