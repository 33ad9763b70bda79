# SPDX-License-Identifier: MIT
# cmake -DGK=gridkit -DCMD=grid|variogram|cv|ridges|"" -DSUMMARY=... -DVERSION=... -DOUT=page.1.gz
#   -P make_man.cmake
# A man page made from the command's own --help (so it says what the program
# does), with a name line, the help text verbatim, and where the guides are;
# gzip-compressed, as Debian installs man pages.
if(CMD)
  execute_process(COMMAND ${GK} ${CMD} --help OUTPUT_VARIABLE help ERROR_VARIABLE help RESULT_VARIABLE rc)
  set(name "gridkit-${CMD}")
else()
  execute_process(COMMAND ${GK} --help OUTPUT_VARIABLE help ERROR_VARIABLE help RESULT_VARIABLE rc)
  set(name "gridkit")
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${GK} ${CMD} --help failed (${rc})")
endif()
string(TOUPPER "${name}" title)
# troff: backslashes doubled, a line starting with . or ' protected
string(REPLACE "\\" "\\e" help "${help}")
string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" help "${help}")
set(see "gridkit(1), gridkit-grid(1), gridkit-variogram(1), gridkit-cv(1), gridkit-ridges(1), gdal_grid(1)")
file(WRITE ${OUT}.tmp ".TH ${title} 1 \"\" \"gridkit ${VERSION}\" \"User Commands\"
.SH NAME
${name} \\- ${SUMMARY}
.SH DESCRIPTION
.nf
${help}.fi
.SH FILES
The modules gridkit loads when asked: <libdir>/gridkit/gridkit_cuda.so (GPUs) and
<libdir>/gridkit/gridkit_mpi.so (under mpirun); the GDAL plugin <libdir>/gdalplugins/gdal_GRIDKIT.so.
.SH SEE ALSO
${see}; the guides (Markdown) in /usr/share/doc/gridkit.
")
file(REMOVE ${OUT})
file(ARCHIVE_CREATE OUTPUT ${OUT} PATHS ${OUT}.tmp FORMAT raw COMPRESSION GZip)
file(REMOVE ${OUT}.tmp)
