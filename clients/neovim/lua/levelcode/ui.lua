-- levelcode.ui: every question the plugin asks goes through here, so that the user's picker
-- (Telescope, fzf-lua, snacks, dressing.nvim, mini.pick: whatever replaces vim.ui.select and
-- vim.ui.input) asks it. Choices, confirmations and text all use vim.ui.select / vim.ui.input,
-- feature-detected (Neovim 0.7.2 has both; a build without them gets inputlist() / input()).
-- Also: cutting text to the window's width for a picker row, and a message in the command line
-- that replaces itself (progress).
-- Pure Neovim API; requires no other levelcode module.

local M = {}

---True when vim.ui.select is Neovim's own (the numbered inputlist), not a picker plugin's.
---@return boolean
function M.builtin_select()
  local ok, info = pcall(debug.getinfo, vim.ui and vim.ui.select or print, 'S')
  return ok and type(info.source) == 'string' and info.source:find('vim/ui%.lua$') ~= nil
end

---Asks the user to pick one of `items`: vim.ui.select with the plugin's `kind`.
---@param items any[]
---@param opts {prompt: string, kind: string|nil, format_item: fun(item: any): string|nil}
---@param on_choice fun(item: any|nil, idx: integer|nil)
function M.select(items, opts, on_choice)
  if vim.ui and vim.ui.select then
    return vim.ui.select(items, opts, on_choice)
  end
  local lines = { opts.prompt }
  for i, it in ipairs(items) do
    table.insert(lines, string.format('%d: %s', i, opts.format_item and opts.format_item(it) or tostring(it)))
  end
  local i = vim.fn.inputlist(lines)
  on_choice(items[i], items[i] and i or nil)
end

---Asks for a line of text: vim.ui.input (the answer is nil when cancelled).
---@param opts {prompt: string, default: string|nil}
---@param on_confirm fun(text: string|nil)
function M.input(opts, on_confirm)
  if vim.ui and vim.ui.input then
    return vim.ui.input(opts, on_confirm)
  end
  local ok, text = pcall(vim.fn.input, opts.prompt, opts.default or '')
  on_confirm(ok and text or nil)
end

---A yes/no question as a two-item select: `yes` (e.g. "Move to the trash") or "Cancel".
---`on_answer(true)` only for `yes`.
---@param prompt string
---@param yes string
---@param on_answer fun(ok: boolean)
function M.confirm(prompt, yes, on_answer)
  M.select({ yes, 'Cancel' }, { prompt = prompt, kind = 'levelcode.confirm' }, function(choice)
    on_answer(choice == yes)
  end)
end

---`s` cut to `width` display cells, ending in "…" when cut.
---@param s string
---@param width integer
---@return string
function M.cut(s, width)
  if width < 2 then
    width = 2
  end
  if vim.fn.strdisplaywidth(s) <= width then
    return s
  end
  local chars = vim.fn.strchars(s)
  local lo, hi = 0, chars
  while lo < hi do -- the longest prefix that fits width - 1 cells (the "…" takes one)
    local mid = math.floor((lo + hi + 1) / 2)
    if vim.fn.strdisplaywidth(vim.fn.strcharpart(s, 0, mid)) <= width - 1 then
      lo = mid
    else
      hi = mid - 1
    end
  end
  return vim.fn.strcharpart(s, 0, lo) .. '…'
end

---The cells a picker row may take: the editor's width less a picker's margin (a number, a
---border), so that a row never wraps in the built-in inputlist.
---@return integer
function M.row_width()
  return math.max(20, vim.o.columns - 8)
end

---Shows `msg` in the command line, replacing the previous one (no history, no hit-enter).
---@param msg string
function M.echo(msg)
  vim.api.nvim_echo({ { M.cut('LevelCode: ' .. msg, math.max(10, vim.o.columns - 12)) } }, false, {})
end

return M
