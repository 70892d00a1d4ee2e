-- luacheck's settings for the Neovim client and its test stubs (tools/luacheck.mjs runs it in
-- `npm test`; install Debian's lua-check). Neovim runs LuaJIT; `vim` is the editor's global,
-- writable because the plugin sets options through it (vim.bo[buf].buftype = ...).
std = 'luajit'
globals = { 'vim' }
-- Long lines are left to review: the plugin's messages and tables read best on one line.
max_line_length = false

-- The test stubs (loaded into the Neovim under test) keep what the user saw in the global `T`.
files['test/clients/neovim/stubs.lua'] = { globals = { 'T' } }
