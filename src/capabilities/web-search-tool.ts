import type { Config, WebSearchMode } from '../config/config.ts';
import type { WebSearchTool } from '../service/types.ts';

/**
 * The web_search tool for a mode: none when off; `force_search` true only when forced (auto lets the
 * model decide). `limit` is passed through as the service defines it.
 */
export function webSearchTool(config: Config, mode: WebSearchMode = config.webSearch.mode): WebSearchTool | undefined {
  if (mode === 'off') return undefined;
  const { maxKeyword, limit, userLocation } = config.webSearch;
  const tool: WebSearchTool = { type: 'web_search', max_keyword: maxKeyword, force_search: mode === 'force', limit };
  if (userLocation) {
    tool.user_location = { type: 'approximate' };
    if (userLocation.country) tool.user_location.country = userLocation.country;
    if (userLocation.region) tool.user_location.region = userLocation.region;
    if (userLocation.city) tool.user_location.city = userLocation.city;
  }
  return tool;
}
