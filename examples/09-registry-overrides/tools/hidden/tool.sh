#!/usr/bin/env bash
echo "never listed"
