{{ grains['outdir'] }}/mounted.txt:
  file.managed:
    - makedirs: true
    - source: salt://mnt/here/mounted.txt
