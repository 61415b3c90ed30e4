"""Training on the speedup reward: TRL (GRPO, SFT) on one machine, verl on Ray for clusters.

- ``trl_reward``   the reward as a TRL reward function (``completions, **columns``);
- ``verl_reward``  the reward as verl's custom reward function (``compute_score``);
- ``verl_export``  train/val Parquet in verl's format, reward module, launch scripts;
- ``verl_scripts`` verl 0.9.x launch scripts (Hydra overrides) with the paper's settings;
- ``budget``       token limits measured with the model's tokenizer, who fits them;
- ``grpo`` / ``sft``  ``supercoder train grpo|sft`` on TRL (+ peft LoRA).

Heavy dependencies (torch, transformers, trl, peft, datasets) are imported lazily so
that importing this package costs nothing.
"""
