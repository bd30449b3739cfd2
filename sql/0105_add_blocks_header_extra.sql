-- Header fields toncenter v3 serves beyond v2's getBlockHeader (BlockInfo vert_seqno_incr and master_ref, BlockExtra
-- rand_seed and created_by). NULL when the source saw only v2 headers; v3 renders them null then.
ALTER TABLE blocks ADD COLUMN IF NOT EXISTS vert_seqno_incr Nullable(Bool);
ALTER TABLE blocks ADD COLUMN IF NOT EXISTS master_ref_seqno Nullable(UInt32);
ALTER TABLE blocks ADD COLUMN IF NOT EXISTS rand_seed Nullable(FixedString(44));
ALTER TABLE blocks ADD COLUMN IF NOT EXISTS created_by Nullable(FixedString(44));
