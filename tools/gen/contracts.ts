/**
 * The contracts the generator's emulated chain runs and the message bodies it sends them. Code comes from npm packages
 * (wallets from @ton/ton, jetton, NFT and highload-wallet code BOCs from @ton-community/assets-sdk) or is a few
 * hand-assembled TVM opcodes; nothing is compiled. Invariant: bodies follow the public TL-B of each standard (TEP-74
 * jettons, TEP-62 NFTs), so the emulator runs the real code paths.
 */
import { Address, beginCell, Builder, Cell, contractAddress, Dictionary, storeMessageRelaxed } from "@ton/core"
import type { MessageRelaxed, StateInit } from "@ton/core"
import { jettonMinterCode } from "@ton-community/assets-sdk/dist/jetton/contracts/build/jetton-minter.js"
import { jettonWalletCode } from "@ton-community/assets-sdk/dist/jetton/contracts/build/jetton-wallet.js"
import { nftCollectionEditableCode } from "@ton-community/assets-sdk/dist/nft/contracts/build/nft-collection-editable.js"
import { nftItemCode } from "@ton-community/assets-sdk/dist/nft/contracts/build/nft-item.js"
import { HighloadWalletContractV2 } from "@ton-community/assets-sdk/dist/wallets/HighloadWalletContractV2.js"

export const JETTON_MINTER_CODE = Cell.fromBase64(jettonMinterCode.codeBoc)
export const JETTON_WALLET_CODE = Cell.fromBase64(jettonWalletCode.codeBoc)
export const NFT_COLLECTION_CODE = Cell.fromBase64(nftCollectionEditableCode.codeBoc)
export const NFT_ITEM_CODE = Cell.fromBase64(nftItemCode.codeBoc)

export const OP = {
  comment: 0,
  jettonMint: 21,
  jettonTransfer: 0x0f8a7ea5,
  jettonInternalTransfer: 0x178d4519,
  jettonNotify: 0x7362d09c,
  excesses: 0xd53276db,
  nftMint: 1,
  nftTransfer: 0x5fcc3d14,
  nftOwnershipAssigned: 0x05138d91
} as const

/**
 * An "event logger": for every inbound internal message it sends one external-out message (addr_none destination)
 * whose body is the inbound body, the way contracts publish logs. Opcodes (TVM spec): DROP the selector, wrap the body
 * slice in a cell (NEWC STSLICE ENDC), write ext_out_msg_info$11 with src/dest addr_none and zero lt/at that the node
 * fills in (PUSHINT 2 STONES, PUSHINT 101 STZEROES), body in a ref (PUSHINT 1 STONES, STREF), ENDC, SENDRAWMSG mode 0.
 */
export const LOGGER_CODE: Cell = beginCell()
  .storeUint(0x30, 8) // DROP
  .storeUint(0xc8, 8) // NEWC
  .storeUint(0xce, 8) // STSLICE
  .storeUint(0xc9, 8) // ENDC
  .storeUint(0xc8, 8) // NEWC
  .storeUint(0x72, 8) // PUSHINT 2
  .storeUint(0xcf41, 16) // STONES
  .storeUint(0x8065, 16) // PUSHINT 101
  .storeUint(0xcf40, 16) // STZEROES
  .storeUint(0x71, 8) // PUSHINT 1
  .storeUint(0xcf41, 16) // STONES
  .storeUint(0xcc, 8) // STREF
  .storeUint(0xc9, 8) // ENDC
  .storeUint(0x70, 8) // PUSHINT 0
  .storeUint(0xfb00, 16) // SENDRAWMSG
  .endCell()

/** A special masterchain account's code for tick-tock: the empty continuation returns at once (exit code 0). */
export const TICKTOCK_CODE: Cell = Cell.EMPTY

export const commentBody = (text: string): Cell => beginCell().storeUint(0, 32).storeStringTail(text).endCell()

export const jettonMinterInit = (admin: Address, tag: string): StateInit => ({
  code: JETTON_MINTER_CODE,
  data: beginCell()
    .storeCoins(0)
    .storeAddress(admin)
    .storeRef(beginCell().storeUint(1, 8).storeStringTail(`https://example.org/jetton/${tag}.json`).endCell())
    .storeRef(JETTON_WALLET_CODE)
    .endCell()
})

/** The jetton wallet of `owner` for `minter`, as the minter's code computes it (status 0 balance, owner, master). */
export const jettonWalletInit = (owner: Address, minter: Address): StateInit => ({
  code: JETTON_WALLET_CODE,
  data: beginCell().storeCoins(0).storeAddress(owner).storeAddress(minter).storeRef(JETTON_WALLET_CODE).endCell()
})

export const jettonMintBody = (args: {
  queryId: bigint
  to: Address
  walletTon: bigint
  amount: bigint
  responseTo: Address
  forwardTon: bigint
}): Cell =>
  beginCell()
    .storeUint(OP.jettonMint, 32)
    .storeUint(args.queryId, 64)
    .storeAddress(args.to)
    .storeCoins(args.walletTon)
    .storeRef(
      beginCell()
        .storeUint(OP.jettonInternalTransfer, 32)
        .storeUint(args.queryId, 64)
        .storeCoins(args.amount)
        .storeAddress(null)
        .storeAddress(args.responseTo)
        .storeCoins(args.forwardTon)
        .storeMaybeRef(null)
    )
    .endCell()

export const jettonTransferBody = (args: {
  queryId: bigint
  amount: bigint
  destination: Address
  responseTo: Address
  forwardTon: bigint
  forwardPayload: Cell | null
}): Cell =>
  beginCell()
    .storeUint(OP.jettonTransfer, 32)
    .storeUint(args.queryId, 64)
    .storeCoins(args.amount)
    .storeAddress(args.destination)
    .storeAddress(args.responseTo)
    .storeMaybeRef(null)
    .storeCoins(args.forwardTon)
    .storeMaybeRef(args.forwardPayload)
    .endCell()

export const nftCollectionInit = (admin: Address, tag: string): StateInit => ({
  code: NFT_COLLECTION_CODE,
  data: beginCell()
    .storeAddress(admin)
    .storeUint(0, 64)
    .storeRef(
      beginCell()
        .storeRef(beginCell().storeUint(1, 8).storeStringTail(`https://example.org/nft/${tag}/collection.json`))
        .storeRef(beginCell().storeStringTail(`https://example.org/nft/${tag}/`))
    )
    .storeRef(NFT_ITEM_CODE)
    .storeRef(beginCell().storeUint(5, 16).storeUint(100, 16).storeAddress(admin))
    .endCell()
})

/** Item address: the collection deploys items with data (index, collection address). */
export const nftItemAddress = (collection: Address, index: number): Address =>
  contractAddress(collection.workChain, {
    code: NFT_ITEM_CODE,
    data: beginCell().storeUint(index, 64).storeAddress(collection).endCell()
  })

export const nftMintBody = (queryId: bigint, index: number, itemTon: bigint, owner: Address): Cell =>
  beginCell()
    .storeUint(OP.nftMint, 32)
    .storeUint(queryId, 64)
    .storeUint(index, 64)
    .storeCoins(itemTon)
    .storeRef(beginCell().storeAddress(owner).storeRef(beginCell().storeStringTail(`${index}.json`)))
    .endCell()

export const nftTransferBody = (args: {
  queryId: bigint
  newOwner: Address
  responseTo: Address
  forwardTon: bigint
  forwardPayload: Cell | null
}): Cell =>
  beginCell()
    .storeUint(OP.nftTransfer, 32)
    .storeUint(args.queryId, 64)
    .storeAddress(args.newOwner)
    .storeAddress(args.responseTo)
    .storeMaybeRef(null)
    .storeCoins(args.forwardTon)
    .storeMaybeRef(args.forwardPayload)
    .endCell()

export const loggerInit = (tag: number): StateInit => ({ code: LOGGER_CODE, data: beginCell().storeUint(tag, 32).endCell() })

/** Highload wallet v2: code and data as the package builds them, messages signed here with a fixed query id. */
export const highloadWallet = (publicKey: Buffer, walletId: number) => {
  const contract = HighloadWalletContractV2.create({ workchain: 0, publicKey, walletId })
  return { address: contract.address, init: contract.init as StateInit, walletId }
}

/** Body of a highload v2 external: signature, wallet id, query id (valid_until << 32 | n), dict i16 -> (mode, ^msg). */
export const highloadTransferBody = (args: {
  sign: (data: Buffer) => Buffer
  walletId: number
  queryId: bigint
  mode: number
  messages: ReadonlyArray<MessageRelaxed>
}): Cell => {
  const dict = Dictionary.empty(Dictionary.Keys.Int(16), {
    serialize: (src: Cell, builder: Builder) => {
      builder.storeUint(args.mode, 8).storeRef(src)
    },
    parse: (): Cell => {
      throw new Error("not parsed here")
    }
  })
  args.messages.forEach((m, i) => dict.set(i, beginCell().store(storeMessageRelaxed(m)).endCell()))
  const signed = beginCell().storeUint(args.walletId, 32).storeUint(args.queryId, 64).storeDict(dict).endCell()
  return beginCell().storeBuffer(args.sign(signed.hash())).storeSlice(signed.beginParse()).endCell()
}
