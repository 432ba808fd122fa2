-- Reserved for this session's work; replaced when it needs a schema change.
SELECT 1;
