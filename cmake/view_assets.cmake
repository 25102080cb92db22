# The page `wnn view` writes carries its own script and style sheet (no network, no CDN):
# src/wnn/view/assets/* become string constants in a generated header at build time.
set(WNN_VIEW_ASSETS
  ${PROJECT_SOURCE_DIR}/src/wnn/view/assets/view.js
  ${PROJECT_SOURCE_DIR}/src/wnn/view/assets/view.css)
set(WNN_VIEW_ASSETS_HEADER ${CMAKE_BINARY_DIR}/generated/wnn/view/assets.h)
string(REPLACE ";" "|" assets_arg "${WNN_VIEW_ASSETS}")
add_custom_command(
  OUTPUT ${WNN_VIEW_ASSETS_HEADER}
  COMMAND ${CMAKE_COMMAND} "-DOUT=${WNN_VIEW_ASSETS_HEADER}" "-DINPUTS=${assets_arg}"
          -P ${PROJECT_SOURCE_DIR}/cmake/embed_assets.cmake
  DEPENDS ${WNN_VIEW_ASSETS} ${PROJECT_SOURCE_DIR}/cmake/embed_assets.cmake
  COMMENT "Embedding the wnn view page assets"
  VERBATIM)
target_sources(wnn_view PRIVATE ${WNN_VIEW_ASSETS_HEADER})
target_include_directories(wnn_view PRIVATE ${CMAKE_BINARY_DIR}/generated)
