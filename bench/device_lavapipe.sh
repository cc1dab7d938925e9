# Source on the GPU machine (after .gl/preamble.sh) with `.lvp` carried: makes the carried
# lavapipe (Debian 12's Mesa 22.3.6, its libraries in .lvp/lvp.tar.xz) the only Vulkan device of
# this shell, for campaigns that must run on lavapipe on the machine's many cores.
mkdir -p /tmp/lvp && tar xJf .lvp/lvp.tar.xz -C /tmp/lvp
cat > /tmp/lvp/lvp_icd.json <<'JSON'
{"file_format_version": "1.0.0", "ICD": {"library_path": "/tmp/lvp/libvulkan_lvp.so", "api_version": "1.3.230"}}
JSON
export VK_ICD_FILENAMES=/tmp/lvp/lvp_icd.json VK_DRIVER_FILES=/tmp/lvp/lvp_icd.json
export LD_LIBRARY_PATH=/tmp/lvp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
