/**
 * Address-book `interfaces` from what the store knows of an account: its code hash. toncenter (ton-index-go's
 * detect/interfaces.go) first matches the code hash against contracts it knows by code, then the get-method ids of
 * the code against interfaces it knows by methods; we keep no method ids, so only the first step is ours.
 * Invariant, as ton-index-go's address book decides it: a known code hash gives exactly toncenter's one-name list; an
 * account the store knows to have no code (its newest state has none: uninit, nonexist, frozen) gives null (toncenter
 * skips detection when both the code hash and the method ids are null); an unrecognised code hash, or an account the
 * store holds nothing for, gives [] (toncenter's answer without method ids, and for an address with no state row).
 */

/** Code hash (base64, as the store keeps it) -> the interface toncenter names for that code. */
const BY_CODE_HASH: ReadonlyMap<string, string> = new Map([
  ["oM/CxIruFqJx8s/AtzgtgXVs7LEBfQd/qqs7tgL2how=", "wallet_v1r1"],
  ["1JAvzJ+tdGmPqONTIgpo2g3PcuMryy657gQhfBfTBiw=", "wallet_v1r2"],
  ["WHzHie/xyE9G7DeX5F/ICaFP9a4k8eDHpqmcydyQYf8=", "wallet_v1r3"],
  ["XJpeaMEI4YchoHxC+ZVr+zmtd+xtYktgxXbsiO7mUyk=", "wallet_v2r1"],
  ["/pUw0yQ4Uwg+8u8LTCkIwKv2+hwx6iQ6rKpb+MfXU/E=", "wallet_v2r2"],
  ["thBBpYp5gLlG6PueGY48kE0keZ/6NldOpCUcQaVm9YE=", "wallet_v3r1"],
  ["hNr6RJ+Ypph3ibojI1gHK8D3bcRSQAKl0JGLmnXS1Zk=", "wallet_v3r2"],
  ["ZN1UgFUixb6KnbWc6gEFzPDQh4bKeb64y3nogKjXMi0=", "wallet_v4r1"],
  ["/rX/aCDi/w2Ug+fg1iyBfYRniftK5YDIeIZtlZ2r1cA=", "wallet_v4r2"],
  ["89fKU0k97trCizgZhqhJQDy6w9LFhHea8IEGWvCsS5M=", "wallet_v5_beta"],
  ["5M87L0xtamHqDytUR9JmeFsmrzY32y3u5rzRqoJvNBI=", "wallet_v5_beta"],
  ["IINLe3KxEhR+Gy+0V7hOdNGjDwT3N9T2KmaOlVLSty8=", "wallet_v5r1"],
  ["2M27t58sXKpnesRQdwvgNRviHhJQSG3oXMUqoz3RZIQ=", "wallet_highload_v1r1"],
  ["Dc7tISadZgE+lbGfu1xVpvAa2tQIN7qo5SHN46AqpGw=", "wallet_highload_v1r2"],
  ["lJTRzI7fEvBWcaGpugmSEJbrUIEeGSTsZcPGKfu4CBI=", "wallet_highload_v2"],
  ["jOtFs81LXMYOquHBO5wJI5Jnf+U2sumy2AG2Lv+TH+E=", "wallet_highload_v2r1"],
  ["ID3U81ittJmTEpqpJcrDmRa2ig5PeNJujywraer6Vnk=", "wallet_highload_v2r2"],
  ["EayteVWEQJDyg78ji8FEmHH3g+fMCXlAjT9IWUg+hSU=", "wallet_highload_v3r1"],
  ["Reu86bXSNYhstr/hw62TtwjeBYJEiSNlye4N/kOct7U=", "wallet_preprocessed_v2"],
  ["tItTGr7DtxRjgpH3137W3J9qJynvyiBHcTc3TUrotZA=", "wallet_vesting"],
  ["vrBoPr64kn/p/I7AoYvH3ReJlomCWhIeq0bFo6hg0M4=", "jetton_wallet_v1"],
  ["jSjqQht36AX+pSrPM1KWSZ8Drsjp/SHdtfJWSqZcSN4=", "jetton_wallet_v2"],
  ["iUaPAseOVwgC45l5yFFvw43wfqdqSDV+BTbyuns+43s=", "jetton_wallet_governed"],
  ["TJEjgoaC+m9DeXq0FzK8qJDK4Bdm4GdBACUFFuC/jUI=", "nft_item_simple"],
  ["09FNqaYn8Ow1MzQYKXYq+SuVQLIb8DZl+sCcK0bqu6w=", "multisig_v2"],
  ["oB4Ff71CiEArmJjXjWe9TpAlTJPFhmh5vC0dEoZUNrw=", "multisig_order_v2"]
])

/** The `interfaces` of an account: its code hash, null when it has no code, undefined when the store holds nothing. */
export const interfacesOf = (codeHash: string | null | undefined): ReadonlyArray<string> | null => {
  if (codeHash === null) return null
  const name = codeHash === undefined ? undefined : BY_CODE_HASH.get(codeHash)
  return name === undefined ? [] : [name]
}

/** The code hashes `interfacesOf` names an interface for; every other hash gets what an unrecognised one gets. */
export const namedCodeHashes = (): Iterable<string> => BY_CODE_HASH.keys()
