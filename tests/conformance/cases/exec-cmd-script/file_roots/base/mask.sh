#!/bin/sh
umask
