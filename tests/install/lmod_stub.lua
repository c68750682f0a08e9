-- Runs an Lmod modulefile with stand-ins for the Lmod functions it calls and prints every change it asks of the
-- environment, one per line ("prepend_path NAME VALUE", "setenv NAME VALUE", "depends_on NAME"), so that a test
-- can check them without Lmod (not installed here). usage: lua5.4 lmod_stub.lua MODULEFILE
-- Only these functions exist: a modulefile calling another Lmod function fails here ("attempt to call a nil
-- value"), and the test with it, until it is added below.
local file = assert(arg[1], "usage: lua5.4 lmod_stub.lua MODULEFILE")
function myFileName() return file end
function pathJoin(...) return (table.concat({...}, "/"):gsub("//+", "/")) end
function prepend_path(name, value) print("prepend_path " .. name .. " " .. value) end
function append_path(name, value) print("append_path " .. name .. " " .. value) end
function setenv(name, value) print("setenv " .. name .. " " .. value) end
function depends_on(...) print("depends_on " .. table.concat({...}, " ")) end
function whatis(text) print("whatis " .. text) end
function help(text) print("help " .. #text) end
function LmodError(...)
  io.stderr:write("LmodError: ", table.concat({...}), "\n")
  os.exit(1)
end
dofile(file)
