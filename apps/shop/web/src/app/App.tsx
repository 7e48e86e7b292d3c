/** Chooses the page by path: `/merchant` is the merchant console, everything else the shop. */

import { MerchantApp } from "./MerchantApp";
import { ShopperApp } from "./ShopperApp";
import { HealthContext, useHealth } from "./use-health";

export function isMerchantPath(pathname: string): boolean {
  return /^\/merchant\/?$/.test(pathname);
}

export function App() {
  const health = useHealth();
  return (
    <HealthContext.Provider value={health}>
      {isMerchantPath(window.location.pathname) ? (
        <MerchantApp health={health.state} />
      ) : (
        <ShopperApp health={health.state} />
      )}
    </HealthContext.Provider>
  );
}
