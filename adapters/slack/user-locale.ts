import type { SlackApi } from './slack-api.ts';

/** The language the user set in Slack (users.info include_locale, e.g. `fr-FR`); undefined when Slack cannot say. */
export async function userLocale(api: SlackApi, userId: string): Promise<string | undefined> {
  try {
    const response = await api.call('users.info', undefined, (c) => c.users.info({ user: userId, include_locale: true }));
    const locale = (response.user as { locale?: unknown } | undefined)?.locale;
    return typeof locale === 'string' && locale !== '' ? locale : undefined;
  } catch {
    return undefined;
  }
}
