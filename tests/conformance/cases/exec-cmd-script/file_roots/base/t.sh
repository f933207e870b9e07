#!/bin/sh
echo "{{ grains['os'] }} {{ greeting }}"
