
include:
  - mysql.macos.install
