include:
  - .{{ grains['os_family']|lower }}.absent
