base:
  '*':
    - rooted
    - mnt.sub.mounted
