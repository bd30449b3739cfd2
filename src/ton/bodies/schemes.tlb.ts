/**
 * The TL-B scheme of the message bodies we decode, in toncenter's constructor and field names (their names are the
 * keys and "@type" values of the JSON users read, so they are part of the output format). Parsed by
 * @ton-community/tlb-parser when `npm run gen:body-scheme` writes its tree to ./schemes.ast.ts, which the product
 * loads (./scheme.ts); `interpret.ts` walks it. Invariant: for every opcode, constructors sharing it appear in
 * the order toncenter tries them (the first that parses wins), and the first one of an opcode names it.
 * Kept as a module rather than a .tlb file so the compiled build carries it without a copy step.
 */
export const BODY_SCHEME = String.raw`
// ---- basic types (toncenter prints every constructor as {"@type": name, ...fields}; numbers as decimal strings)

false$0 = Bool;
true$1 = Bool;

nothing_from_maybe$0 {X:Type} = Maybe X;
something_from_maybe$1 {X:Type} value:X = Maybe X;

first_from_either$0 {X:Type} {Y:Type} value:X = Either X Y;
second_from_either$1 {X:Type} {Y:Type} value:Y = Either X Y;

anycast_info$_ depth:(#<= 30) { depth >= 1 } rewrite_pfx:(bits depth) = Anycast;

addr_none$00 = MsgAddressExt;
addr_external$01 len:(## 9) external_address:(bits len) = MsgAddressExt;

addr_std$10 anycast:(Maybe Anycast) workchain_id:int8 address:bits256 = MsgAddressInt;
addr_var$11 anycast:(Maybe Anycast) addr_len:(## 9) workchain_id:int32 address:(bits addr_len) = MsgAddressInt;

addr_none$00 = MsgAddress;
addr_external$01 len:(## 9) external_address:(bits len) = MsgAddress;
addr_std$10 anycast:(Maybe Anycast) workchain_id:int8 address:bits256 = MsgAddress;
addr_var$11 anycast:(Maybe Anycast) addr_len:(## 9) workchain_id:int32 address:(bits addr_len) = MsgAddress;

_ _:Cell = Bytes;

var_uint$_ {n:#} len:(#< n) value:(uint (len * 8)) = VarUInteger n;
nanograms$_ amount:(VarUInteger 16) = Grams;
nanocoins$_ amount:(VarUInteger 16) = Coins;

// HashmapE n X and Hashmap n X (TL-B's standard dictionary scheme, whose labels take negative type parameters) are
// read natively by interpret.ts, printed as tlbc prints that scheme.
extra_currencies$_ dict:(HashmapE 32 (VarUInteger 32)) = ExtraCurrencyCollection;
currencies$_ grams:Grams other:ExtraCurrencyCollection = CurrencyCollection;

int_msg_info$0 ihr_disabled:Bool bounce:Bool bounced:Bool src:MsgAddress dest:MsgAddressInt
  value:CurrencyCollection ihr_fee:Grams fwd_fee:Grams created_lt:uint64 created_at:uint32 = CommonMsgInfoRelaxed;
ext_out_msg_info$11 src:MsgAddress dest:MsgAddressExt created_lt:uint64 created_at:uint32 = CommonMsgInfoRelaxed;

tick_tock$_ tick:Bool tock:Bool = TickTock;
_ fixed_prefix_length:(Maybe (## 5)) special:(Maybe TickTock) code:(Maybe ^Cell) data:(Maybe ^Cell)
  library:(Maybe ^Cell) = StateInit;

message$_ {X:Type} info:CommonMsgInfoRelaxed init:(Maybe (Either StateInit ^StateInit)) body:(Either X ^X)
  = MessageRelaxed X;

out_list_empty$_ = OutList 0;
out_list$_ {n:#} prev:^(OutList n) action:OutAction = OutList (n + 1);
action_send_msg#0ec3c86d mode:(## 8) out_msg:^(MessageRelaxed Any) = OutAction;
action_set_code#ad4de08e new_code:^Cell = OutAction;
action_reserve_currency#36e6b809 mode:(## 8) currency:CurrencyCollection = OutAction;
libref_hash$0 lib_hash:bits256 = LibRef;
libref_ref$1 library:^Cell = LibRef;
action_change_library#26fa1dd4 mode:(## 7) libref:LibRef = OutAction;

// ---- TEP-74 jettons

jetton_transfer#0f8a7ea5 query_id:uint64 amount:(VarUInteger 16) destination:MsgAddress
  response_destination:MsgAddress custom_payload:(Maybe ^Cell) forward_ton_amount:(VarUInteger 16)
  forward_payload:(Either Cell ^Cell) = InternalMsgBody;

// Wallets that send the payload without the Either bit parse as the second form.
jetton_internal_transfer#178d4519 query_id:uint64 amount:(VarUInteger 16) from:MsgAddress response_address:MsgAddress
  forward_ton_amount:(VarUInteger 16) forward_payload:(Either Cell ^Cell) = InternalMsgBody;
jetton_internal_transfer#178d4519 query_id:uint64 amount:(VarUInteger 16) from:MsgAddress response_address:MsgAddress
  forward_ton_amount:(VarUInteger 16) forward_payload:Any = InternalMsgBody;

jetton_burn#595f07bc query_id:uint64 amount:(VarUInteger 16) response_destination:MsgAddress
  custom_payload:(Maybe ^Cell) = InternalMsgBody;

jetton_burn_notification#7bdd97de query_id:uint64 amount:(VarUInteger 16) sender:MsgAddress
  response_destination:MsgAddress = InternalMsgBody;

jetton_notify#7362d09c query_id:uint64 amount:(VarUInteger 16) sender:MsgAddress forward_payload:(Either Cell ^Cell)
  = InternalMsgBody;

// ---- common bodies

bounce#ffffffff payload:Cell = InternalMsgBody;

text_comment#00000000 text:SnakeString = InternalMsgBody;
text_comment#00000000 text:^SnakeString = InternalMsgBody;

encrypted_text_comment#2167da4b cipher_text:Bytes = InternalMsgBody;

excess#d53276db query_id:uint64 = InternalMsgBody;

// ---- opcode 1, shared by several protocols: the marker tries a guard constructor (named after all of them, read only
// when a salt follows the opcode), then Pyth's guardian-set update (a ref of at least 48 bits), then EVAA's supply in
// its three versions. A constructor name may list several names separated by commas (tlbc takes it as one name).

rand#387da03b = JustRandomSalt;
evaa_supply_master,pyth_update_guardian_set,w4_deploy_install_plugin#00000001 rand:JustRandomSalt = InternalMsgBody;

_ version:uint8 guardian_set_index:uint32 signatures_length:uint8 rest_signatures:Any = PythGuardianSetUpdate;
pyth_update_guardian_set#00000001 _:^PythGuardianSetUpdate = InternalMsgBody;

_ amount:uint64 = EvaaAmount;
bool_true$11 = BoolExtended;
bool_false$00 = BoolExtended;
sm_opt_data$_ subaccount_id:int16 return_repay_remainings_flag:BoolExtended custom_payload_recipient:MsgAddressInt
  custom_payload_saturation_flag:BoolExtended = SupplyMasterOptional;
evaa_supply_master#00000001 query_id:uint64 include_user_code:BoolExtended supply_amount:EvaaAmount
  recipient_address:MsgAddressInt forward_ton_amount:EvaaAmount custom_response_payload:^Cell = InternalMsgBody;
evaa_supply_master#00000001 query_id:uint64 include_user_code:BoolExtended supply_amount:EvaaAmount
  recipient_address:MsgAddressInt custom_response_payload:^Cell supply_master_optional:SupplyMasterOptional
  = InternalMsgBody;
evaa_supply_master#00000001 query_id:uint64 include_user_code:BoolExtended supply_amount:EvaaAmount
  recipient_address:MsgAddressInt custom_response_payload:^Cell supply_master_optional:Any = InternalMsgBody;

// ---- jetton minters

minter_jetton_mint#00000015 query_id:uint64 to_address:MsgAddress ton_amount:Coins master_msg:^Cell = InternalMsgBody;

// ---- TEP-62 / TEP-66 NFTs

nft_transfer#5fcc3d14 query_id:uint64 new_owner:MsgAddress response_destination:MsgAddress
  custom_payload:(Maybe ^Cell) forward_amount:(VarUInteger 16) forward_payload:(Either Cell ^Cell) = InternalMsgBody;

nft_ownership_assigned#05138d91 query_id:uint64 prev_owner:MsgAddress forward_payload:(Either Cell ^Cell)
  = InternalMsgBody;

get_static_data#2fcb26a2 query_id:uint64 = InternalMsgBody;
report_static_data#8b771735 query_id:uint64 index:uint256 collection:MsgAddress = InternalMsgBody;

get_royalty_params#693d3950 query_id:uint64 = InternalMsgBody;
report_royalty_params#a8cb00ad query_id:uint64 numerator:uint16 denominator:uint16 destination:MsgAddress
  = InternalMsgBody;

// ---- TEP-85 SBTs

prove_ownership#04ded148 query_id:uint64 dest:MsgAddress forward_payload:^Cell with_content:Bool = InternalMsgBody;
ownership_proof#0524c7ae query_id:uint64 item_id:uint256 owner:MsgAddress data:^Cell revoked_at:uint64
  content:(Maybe ^Cell) = InternalMsgBody;
sbt_request_owner#d0c3bfea query_id:uint64 dest:MsgAddress forward_payload:^Cell with_content:Bool = InternalMsgBody;
sbt_owner_info#0dd607e3 query_id:uint64 item_id:uint256 initiator:MsgAddress owner:MsgAddress data:^Cell
  revoked_at:uint64 content:(Maybe ^Cell) = InternalMsgBody;
sbt_destroy#1f04537a query_id:uint64 = InternalMsgBody;
sbt_revoke#6f89f5e3 query_id:uint64 = InternalMsgBody;

// ---- DEX: STON.fi v1 and v2 swaps and pTON, DeDust swaps and payouts (ForwardPayload constructors are the forms these
// take inside a jetton transfer's forward payload; they are tried after every InternalMsgBody of the same opcode)

pay_to_params#_ amount0_out:(VarUInteger 16) token0_address:MsgAddress amount1_out:(VarUInteger 16)
  token1_address:MsgAddress = StonfiPayToParams;
swap_addresses#_ from_user:MsgAddress = StonfiSwapAddrs;
stonfi_swap#25938561 query_id:uint64 to_address:MsgAddress sender_address:MsgAddress
  jetton_amount:(VarUInteger 16) min_out:(VarUInteger 16) has_ref_address:Bool addrs:^StonfiSwapAddrs = InternalMsgBody;
stonfi_payment_request#f93bb43f query_id:uint64 owner:MsgAddress exit_code:uint32
  params:(Either StonfiPayToParams ^StonfiPayToParams) = InternalMsgBody;
pton_ton_transfer#01f3835d query_id:uint64 ton_amount:Coins refund_address:MsgAddress
  forward_payload:(Either Cell ^Cell) = InternalMsgBody;
pton_ton_refund#ae25d79e query_id:uint64 = InternalMsgBody;
stonfi_swap_forward_payload#25938561 token_wallet:MsgAddress min_out:(VarUInteger 16) to_address:MsgAddress
  referral_address:(Maybe MsgAddress) = ForwardPayload;
stonfi_swap_ok_forward_payload#c64370e5 = ForwardPayload;
stonfi_swap_ok_ref_forward_payload#45078540 = ForwardPayload;

swap_body#_ min_out:(VarUInteger 16) receiver:MsgAddress fwd_gas:Coins custom_payload:(Maybe ^Cell)
  refund_fwd_gas:Coins refund_payload:(Maybe ^Cell) ref_fee:uint16 ref_address:MsgAddress = SwapBody;
dex_payload#_ transferred_op:uint32 token_wallet1:MsgAddress refund_address:MsgAddress excesses_address:MsgAddress
  tx_deadline:uint64 _:^SwapBody = DexPayload;
stonfi_swap_v2#6664de2a query_id:uint64 from_user:MsgAddress left_amount:(VarUInteger 16)
  right_amount:(VarUInteger 16) _:^DexPayload = InternalMsgBody;
additional_info_pay_to_v2#_ fwd_ton_amount:Coins amount0_out:(VarUInteger 16) token0_address:MsgAddress
  amount1_out:(VarUInteger 16) token1_address:MsgAddress = AdditionalInfoPayToV2;
stonfi_pay_to_v2#657b54f5 query_id:uint64 to_address:MsgAddress excesses_address:MsgAddress
  original_caller:MsgAddress exit_code:uint32 custom_payload:(Maybe ^Cell) _:^AdditionalInfoPayToV2 = InternalMsgBody;
stonfi_vault_pay_to_v2#2100c922 query_id:uint64 amount_out:(VarUInteger 16) token_address:MsgAddress
  to_address:MsgAddress = InternalMsgBody;
cross_swap_body#_ min_out:(VarUInteger 16) receiver:MsgAddress fwd_gas:Coins custom_payload:(Maybe ^Cell)
  refund_fwd_gas:Coins refund_payload:(Maybe ^Cell) ref_fee:uint16 ref_address:MsgAddress = CrossSwapBody;
stonfi_swap_v2_forward_payload#6664de2a token_wallet1:MsgAddress refund_address:MsgAddress
  excesses_address:MsgAddress tx_deadline:uint64 _:^CrossSwapBody = ForwardPayload;

_ timestamp:uint32 = DedustTimestamp;
native$0000 = DedustAsset;
jetton$0001 workchain_id:int8 address:bits256 = DedustAsset;
vault#01 = DedustContractType;
pool#02 = DedustContractType;
liquidity_deposit#03 = DedustContractType;
operator#04 = DedustContractType;
proof#_ {X:Type} factory_addr:MsgAddressInt contract_type:DedustContractType params:X = DedustProof X;
pool_params#_ is_stable:Bool asset0:DedustAsset asset1:DedustAsset = DedustPoolParams;
_ proof:(DedustProof DedustAsset) = DedustVaultProof;
_ proof:(DedustProof DedustPoolParams) = DedustPoolProof;
given_in$0 = DedustSwapKind;
given_out$1 = DedustSwapKind;
swap_params#_ deadline:DedustTimestamp recipient_addr:MsgAddress referral_addr:MsgAddress
  fulfill_payload:(Maybe ^Cell) reject_payload:(Maybe ^Cell) = DedustSwapParams;
step_params#_ kind:DedustSwapKind limit:Coins next:(Maybe ^DedustSwapStep) = DedustSwapStepParams;
step#_ pool_addr:MsgAddressInt params:DedustSwapStepParams = DedustSwapStep;
dedust_pay_out_from_pool#ad4eb6f5 query_id:uint64 proof:^DedustPoolProof amount:Coins recipient_addr:MsgAddress
  payload:(Maybe ^Cell) = InternalMsgBody;
dedust_payout#474f86cf query_id:uint64 payload:(Maybe ^Cell) = InternalMsgBody;
dedust_swap#ea06185d query_id:uint64 amount:Coins _:DedustSwapStep swap_params:^DedustSwapParams = InternalMsgBody;
dedust_swap#e3a0d482 _:DedustSwapStep swap_params:^DedustSwapParams = ForwardPayload;
dedust_swap_external#61ee542d query_id:uint64 proof:^DedustVaultProof amount:Coins sender_addr:MsgAddressInt
  current:DedustSwapStepParams swap_params:^DedustSwapParams = InternalMsgBody;
dedust_swap_peer#72aca8aa query_id:uint64 proof:^DedustPoolProof asset:DedustAsset amount:Coins
  sender_addr:MsgAddressInt current:DedustSwapStepParams swap_params:^DedustSwapParams = InternalMsgBody;

// ---- Telegram usernames and numbers (telemint items), NFT sales

teleitem_auction_config$_ beneficiary_address:MsgAddressInt initial_min_bid:Grams max_bid:Grams min_bid_step:uint8
  min_extend_time:uint32 duration:uint32 = TeleitemAuctionConfig;
teleitem_ok#a37a0983 query_id:int64 = InternalMsgBody;
teleitem_msg_start_auction#487a8e81 query_id:int64 auction_config:^TeleitemAuctionConfig = InternalMsgBody;
teleitem_msg_cancel_auction#371638ae query_id:int64 = InternalMsgBody;

sale_update_message#6c6c2080 query_id:uint64 new_full_price:Coins new_mp_fee:Coins new_royalty_amount:Coins
  = InternalMsgBody;

// ---- Blum memepad

blum_memepad_buy#af750d34 query_id:uint64 min_recieve:Coins receiver:MsgAddress refferal:Cell = InternalMsgBody;
blum_memepad_buy_log#ceac8af4 buyer_address:MsgAddress tons_consumed:Coins supply_delta:Coins new_supply:Coins
  collected_ton_liq:Coins refferal:Cell = InternalMsgBody;

// ---- wallet v4 plugin messages

wallet_plugin_installation_notification#6e6f7465 query_id:uint64 = InternalMsgBody;
wallet_plugin_destruct#64737472 query_id:uint64 = InternalMsgBody;
wallet_plugin_destruct_response#e4737472 query_id:uint64 = InternalMsgBody;
payment_request#706c7567 query_id:uint64 amount:CurrencyCollection = InternalMsgBody;
payment_confirmed#f06c7567 query_id:uint64 = InternalMsgBody;

// ---- bodies of external messages with an opcode (tried after every InternalMsgBody of the same opcode, before the
// ForwardPayload ones)

_ out_token_addr:MsgAddressInt out_amount:Coins = MegatonSwapOut;
megaton_swap#7362d09c account_addr:MsgAddressInt in_token_addr:MsgAddressInt in_amount:Coins _:^MegatonSwapOut
  = ExternalMsgBody;

// The forward-payload form of an encrypted comment has the InternalMsgBody form's layout, so the latter always wins.
encrypted_text_comment_forward_payload#2167da4b cipher_text:Bytes = ForwardPayload;

// ---- wallet v5: named by opcode here; decoded by W5MsgBody with the action counts read from the cells first

w5_internal_signed_request#73696e74 rest:Any = InternalMsgBody;
w5_external_signed_request#7369676e rest:Any = InternalMsgBody;
w5_extension_action_request#6578746e rest:Any = InternalMsgBody;

extended_list_last$_ action:W5ExtendedAction = W5ExtendedActionList 0;
extended_list_action$_ {m:#} action:W5ExtendedAction prev:^(W5ExtendedActionList m) = W5ExtendedActionList (m + 1);
add_extension#02 addr:MsgAddressInt = W5ExtendedAction;
delete_extension#03 addr:MsgAddressInt = W5ExtendedAction;
set_signature_auth_allowed#04 allowed:Bool = W5ExtendedAction;

w5_actions_request$_ {m:#} {n:#} out_actions:(Maybe ^(OutList m)) extended_actions:(Maybe (W5ExtendedActionList n))
  = W5InnerRequest m n;
w5_signed_request$_ {m:#} {n:#} wallet_id:uint32 valid_until:uint32 msg_seqno:uint32 inner:(W5InnerRequest m n)
  signature:bits512 = W5SignedRequest m n;
w5_internal_signed_request#73696e74 {m:#} {n:#} request:(W5SignedRequest m n) = W5MsgBody m n;
w5_external_signed_request#7369676e {m:#} {n:#} request:(W5SignedRequest m n) = W5MsgBody m n;
w5_extension_action_request#6578746e {m:#} {n:#} query_id:uint64 request:(W5InnerRequest m n) = W5MsgBody m n;

// ---- highload wallet v3 internal request: named here, decoded with its action count

highload_v3_internal_request#ae42e5a4 rest:Any = InternalMsgBody;
highload_v3_internal_request#ae42e5a4 {n:#} query_id:uint64 actions:^(OutList n) = HighloadV3InternalRequest n;

// ---- signed external bodies without an opcode (tried when the first 32 bits name nothing)

_ mode:(## 8) msg:^(MessageRelaxed Any) = ModeWithMessage;
msgs_0#_ = WalletV1toV4Msgs 0;
msgs_1#_ msg_1:ModeWithMessage = WalletV1toV4Msgs 1;
msgs_2#_ msg_1:ModeWithMessage msg_2:ModeWithMessage = WalletV1toV4Msgs 2;
msgs_3#_ msg_1:ModeWithMessage msg_2:ModeWithMessage msg_3:ModeWithMessage = WalletV1toV4Msgs 3;
msgs_4#_ msg_1:ModeWithMessage msg_2:ModeWithMessage msg_3:ModeWithMessage msg_4:ModeWithMessage
  = WalletV1toV4Msgs 4;

wallet_signed_v1_v2#_ {n:#} signature:bits512 msg_seqno:uint32 valid_until:uint32 msgs:(WalletV1toV4Msgs n)
  = W1W2MsgBody n;
wallet_signed_v3#_ {n:#} signature:bits512 subwallet_id:uint32 valid_until:uint32 msg_seqno:uint32
  msgs:(WalletV1toV4Msgs n) = W3MsgBody n;

simple_send#00 {n:#} msgs:(WalletV1toV4Msgs n) = W4Operation n;
deploy_install_plugin#01 {n:#} plugin_workchain:int8 plugin_balance:Coins state_init:^StateInit body:^Cell
  = W4Operation n;
install_plugin#02 {n:#} plugin_workchain:int8 plugin_address:bits256 amount:Coins query_id:uint64 = W4Operation n;
remove_plugin#03 {n:#} plugin_workchain:int8 plugin_address:bits256 amount:Coins query_id:uint64 = W4Operation n;
wallet_signed_v4#_ {n:#} signature:bits512 subwallet_id:uint32 valid_until:uint32 msg_seqno:uint32
  op:(W4Operation n) = W4MsgBody n;

highload_wallet_signed_v1#_ signature:bits512 subwallet_id:uint32 valid_until:uint32 msg_seqno:uint32
  payload:^(Hashmap 16 ModeWithMessage) = HighloadV1MsgBody;
highload_wallet_signed_v2#_ signature:bits512 subwallet_id:uint32 query_id:uint64
  payload:(HashmapE 16 ModeWithMessage) = HighloadV2MsgBody;

_ {n:#} valid_until:uint64 seqno:uint16 actions:^(OutList n) = PreprocessedWalletV2MsgInner n;
preprocessed_wallet_signed_v2#_ {n:#} signature:bits512 inner:^(PreprocessedWalletV2MsgInner n)
  = PreprocessedWalletV2MsgBody n;

_ shift:uint13 bit_number:(## 10) = HighloadV3QueryId;
_ subwallet_id:uint32 message_to_send:^(MessageRelaxed Any) send_mode:uint8 query_id:HighloadV3QueryId
  created_at:uint64 timeout:uint22 = HighloadV3MsgInner;
highload_wallet_signed_v3#_ signature:bits512 msg_inner:^HighloadV3MsgInner = HighloadV3MsgBody;
`
