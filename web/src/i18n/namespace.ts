import i18n from 'i18next';

/**
 * Adds a screen's own namespace (its texts in pt, en and es) to the app's i18next instance. i18next gives an
 * instance its resource methods only when it is initialised: before that (a module imported by a unit test
 * without the app's i18n set-up) the bundles are added once it is.
 */
export function addNamespace(ns: string, texts: Record<string, object>) {
  const add = () => {
    for (const [lng, bundle] of Object.entries(texts))
      if (!i18n.hasResourceBundle(lng, ns)) i18n.addResourceBundle(lng, ns, bundle, true, true);
  };
  if (i18n.isInitialized) add();
  else i18n.on('initialized', add);
}
