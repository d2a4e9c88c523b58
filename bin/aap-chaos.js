#!/usr/bin/env node
// Thin launcher: all behaviour lives in the compiled CLI module.
import '../dist/cli.js';
