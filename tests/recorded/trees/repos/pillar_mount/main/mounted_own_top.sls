mounted_own_top: true
