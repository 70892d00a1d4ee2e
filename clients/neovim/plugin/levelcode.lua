-- plugin/levelcode.lua: defines the user commands and nothing else. Every command requires the
-- `levelcode` module only when it runs, so startup costs no Lua module loads and no sidecar.
-- Works on Neovim 0.7.2 (nvim_create_user_command arrived in 0.7).

if vim.g.loaded_levelcode then
  return
end
vim.g.loaded_levelcode = true

if vim.fn.has('nvim-0.7') == 0 then
  vim.api.nvim_echo({ { 'LevelCode needs Neovim 0.7.2 or newer', 'ErrorMsg' } }, true, {})
  return
end

local function cmd(name, fn, opts)
  vim.api.nvim_create_user_command(name, fn, opts)
end

cmd('LevelHistory', function(a)
  require('levelcode').history(a.bang, a.args)
end, {
  bang = true,
  nargs = '?',
  complete = function()
    return { 'archived' }
  end,
  desc = 'LevelCode: chat History (! opens it in a buffer that updates itself; archived: the archived chats)',
})

cmd('LevelUndo', function()
  require('levelcode').undo()
end, { desc = 'LevelCode: bring back the chat just deleted' })

cmd('LevelRetention', function(a)
  require('levelcode').retention(a.bang, a.args)
end, {
  bang = true,
  nargs = '?',
  complete = function()
    return { 'delete' }
  end,
  desc = 'LevelCode: what retention would archive (! applies it; ! delete trashes instead)',
})

cmd('LevelRelink', function(a)
  require('levelcode').relink(a.fargs)
end, { nargs = '+', complete = 'dir', desc = "LevelCode: make the chats of folder OLD the chats of NEW (default: this project)" })

cmd('LevelResumeLast', function()
  require('levelcode').resume_last()
end, { desc = "LevelCode: resume this project's most recent chat" })

cmd('LevelNew', function()
  require('levelcode').new_chat()
end, { desc = 'LevelCode: save the current chat to History and start a new one' })

cmd('LevelExport', function(a)
  require('levelcode').export(a.args ~= '' and a.args or nil)
end, { nargs = '?', complete = 'file', desc = 'LevelCode: export a chat as Markdown (to a file, or a new buffer)' })

cmd('LevelRename', function(a)
  require('levelcode').rename(a.args ~= '' and a.args or nil)
end, { nargs = '?', desc = 'LevelCode: rename the current chat' })

cmd('LevelSearch', function(a)
  require('levelcode').search(a.args, a.bang)
end, { nargs = '+', bang = true, desc = 'LevelCode: search chats (! fills the quickfix list)' })

cmd('LevelImport', function(a)
  require('levelcode').import(a.args)
end, {
  nargs = '?',
  complete = function(lead)
    -- The running sidecar's tools (its capability); only `all` before it has started.
    local names = { 'all' }
    for _, t in ipairs(require('levelcode.import').tools()) do
      table.insert(names, t.id)
    end
    table.sort(names)
    return vim.tbl_filter(function(n)
      return n:sub(1, #lead) == lead
    end, names)
  end,
  desc = 'LevelCode: import chats from other AI tools (Claude Code, Codex, ...) into History',
})

-- `:help levelcode` needs the help tags beside the vimdoc, and neither a plain package nor a
-- checkout added with `rtp:append` makes them. Made here when missing or older than the doc
-- (one stat a start when current); doc/tags is git-ignored. A read-only install is left alone.
do
  local doc = vim.api.nvim_get_runtime_file('doc/levelcode.txt', false)[1]
  if doc then
    local dir = vim.fn.fnamemodify(doc, ':h')
    local txt, tags = vim.loop.fs_stat(doc), vim.loop.fs_stat(dir .. '/tags')
    if txt and (not tags or tags.mtime.sec < txt.mtime.sec) and vim.fn.filewritable(dir) == 2 then
      pcall(vim.cmd, 'silent helptags ' .. vim.fn.fnameescape(dir))
    end
  end
end
