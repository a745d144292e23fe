"""Every item a learner's progress can mark, in a fixed order: a progress code is one value per item, in this order.

APPEND ONLY. A code copied today must mean the same tomorrow, so an item keeps its place for good: a new lesson,
question or checkpoint question is added at the end, and an item the course no longer has stays (its value is
then read and ignored). Items are lessons (their url_path), lesson questions (their key as
``misconceptions.MISCONCEPTIONS`` holds it, a run-time key as its prefix and ``*``) and checkpoint questions
(``cp_...``). ``tests/test_course.py`` checks that every item the course has today is here, once.
"""

ITEMS: tuple[str, ...] = (
    # lessons
    'order', 'naive', 'binary', 'sinusoidal', 'learned', 'token_position', 'rope', 'rope_relative', 'rope_variants',
    'rope_model', 'alibi', 't5', 'nope', 'shaw', 'compare', 'extension', 'extension_compare', 'model_configs',
    'layer_strip', 'local_global', 'nope_layers', 'hybrids', 'attention_sinks', 'latent_attention',
    'fewer_frequencies', 'drope', 'cope', 'fox', 'stick_breaking', 'path_attention', 'deberta', 'modernbert',
    'xl_relative', 'mm_position_ids', 'mm_pair_axes', 'mm_scores', 'vision_rope', 'dit_image_ids', 'dit_sd3_grid',
    'dit_video_rope', 'dit_resolution', 'patches', 'resize', 'fourier', 'lab', 'real_encoder', 'real_frequencies',
    'real_distance', 'real_long_context', 'kv_cache', 'context_shift', 'streaming', 'engine_metadata',
    # lesson questions
    'binary_repeat', 'naive_width', 'naive_fraction', 'order_rows', 'learned_rows', 'base', 'tp_louder', 'tp_width',
    'shift', 'rm_rotated', 'rm_share', 'rr_diagonal', 'rr_random', 'rv_layouts', 'rv_bfloat16', 'doubled',
    'cmp_length', 'nope_rows', 'nope_start', 'shaw_rows', 'shaw_flat', 't5_far', 'cmp_fast', 'cmp_ood', 'divided_*',
    'cfg_trained', 'sink_row_sum', 'sink_window', 'fewer_same', 'drope_dropped', 'cope_how_many', 'fox_zero',
    'mla_shift', 'nope_scout', 'nope_first_step', 'hybrid_drop', 'hybrid_blind', 'strip_longer', 'lg_slowest',
    'path_fixed', 'sb_level', 'deberta_same', 'deberta_far', 'mb_window', 'mb_cost', 'xl_d', 'real_distance_far',
    'encoder_no_rows', 'encoder_prev_head', 'real_freq_layer', 'real_long_past', 'ff_sigma', 'ff_worst', 'vit_base',
    'vit_flat', 'resize_other', 'dit_corner', 'dit_res_fast', 'dit_sd3_unseen', 'dit_video_frames', 'mm_axes_wide',
    'mm_ids_wider', 'mm_scores_wider', 'mm_scores_fps', 'vision_theta', 'lab_longest', 'lab_pi', 'cs_offset',
    'cs_many', 'engine_bare', 'kv_double', 'kv_next_step', 'kv_dynamic', 'stream_window', 'stream_share',
    # checkpoint questions
    'cp_why_position_pooled', 'cp_why_position_set', 'cp_why_position_integer', 'cp_why_position_bits',
    'cp_absolute_slowest', 'cp_absolute_offset', 'cp_absolute_rows', 'cp_absolute_width', 'cp_rope_fastest',
    'cp_rope_decay', 'cp_rope_layouts', 'cp_rope_values', 'cp_attention_bias_slope', 'cp_attention_bias_far',
    'cp_attention_bias_nope', 'cp_attention_bias_shaw', 'cp_long_context_unseen', 'cp_long_context_dynamic',
    'cp_long_context_fastest', 'cp_long_context_trained', 'cp_todays_models_slowest', 'cp_todays_models_sink',
    'cp_todays_models_fraction', 'cp_todays_models_hybrid', 'cp_encoders_terms', 'cp_encoders_far',
    'cp_encoders_window', 'cp_encoders_xl', 'cp_multimodal_advance', 'cp_multimodal_width', 'cp_multimodal_fps',
    'cp_multimodal_vision', 'cp_diffusion_text', 'cp_diffusion_corner', 'cp_diffusion_sd3', 'cp_diffusion_ntk',
    'cp_images_flat', 'cp_images_cross', 'cp_images_resize', 'cp_images_sigma', 'cp_lab_learned', 'cp_lab_longest',
    'cp_lab_pi', 'cp_real_models_order', 'cp_real_models_energy', 'cp_real_models_sink', 'cp_real_models_inside',
    'cp_inference_stored', 'cp_inference_static', 'cp_inference_shift', 'cp_inference_text',
    'rv_fope_clip', 'mm_axes_xd_halves', 'dca_far', 'dual_chunk', 'porting_bugs', 'bugs_previous',
    'cp_real_models_bug',
)
