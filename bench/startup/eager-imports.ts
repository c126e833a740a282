// Preloaded with `node --import` for the reference run of bench/startup.bench.ts: every package Herald loads
// only once it is used (a platform configured, a redis:// store, the first image, the first voice join),
// imported at start-up as all of them were before.
import 'discord.js';
import '@discordjs/voice';
import '@slack/bolt';
import 'sharp';
import 'heic-decode';
import '@keyv/redis';
