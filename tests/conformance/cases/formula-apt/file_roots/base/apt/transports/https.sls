apt-transport-https:
  pkg.installed:
    - name: apt-transport-https
