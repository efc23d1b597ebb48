/**
 * The X.509 and address-classification code the proxy shares with the server's certificate
 * manager: one issuer (native EC signing, no global polyfill) and one classifier, so the proxy's
 * egress guard and discovery's target check judge an address the same way.
 */
export {
  addressRefusal,
  certificateFingerprint,
  classifyAddress,
  createRootCa,
  issueCertificate,
  prepareIssuer,
  type PreparedIssuer,
} from "@strongroom/core";
