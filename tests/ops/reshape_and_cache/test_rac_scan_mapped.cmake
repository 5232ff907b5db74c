# test_rac_scan_mapped: scan maps big dumped tensors, judged in place, a
# truncated one exits 2; it builds in the scan command's own files
# (tools/cli/scan_cmd.c) to run a --jobs worker. Included by
# tests/CMakeLists.txt, which sets _name and _t.
kvg_add_test(${_name} SOURCES ${_t}
  ${PROJECT_SOURCE_DIR}/tools/cli/scan_cmd.c
  ${PROJECT_SOURCE_DIR}/tools/cli/file_shrank.c
  ${PROJECT_SOURCE_DIR}/tools/cli/report_targets.c
  LIBS kvgold_harness kvgold_scan kvgold_report)
target_include_directories(${_name} PRIVATE ${PROJECT_SOURCE_DIR}/tools/cli)
