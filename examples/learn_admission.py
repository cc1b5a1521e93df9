"""Learn an admission policy on the profit paper's default scenario and compare it with the
paper's heuristics on held-out seeds (docs/papers/environments.md).

    pip install -e '.[rl]'                      # Stable-Baselines3, sb3-contrib (and torch)
    python examples/learn_admission.py          # a few minutes on 2 cores

Trains sb3-contrib's MaskablePPO (PPO that never samples an action the mask forbids) on
``gridmarket/Admission-v0`` (Popovici & Wilkes SC'05 Table 1: 200 jobs, 10 processors at 3
florins per processor-hour; FirstProfit schedules what is admitted), observations and rewards
normalised by SB3's ``VecNormalize``, training runs on seeds drawn from ``--train-seed``. Then
every agent runs the held-out seeds 1..``--eval-seeds`` (never trained on) and the table gives
each one's mean profit (the episode return), its standard deviation, the share of jobs admitted,
its profit less PositiveOpportunity's on the same seeds (the same job streams; mean ± standard
error) and on how many of them it earns more: the learned policy, FirstProfit +
PositiveOpportunity (§3.4, the paper's admission control), accepting every job, and a random
agent.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import envs
from envs.admission import AdmissionEnv
from envs.baselines import AcceptAllAgent, PositiveOpportunityAgent, RandomAgent

try:
    import gymnasium as gym
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize
except ImportError:  # the [rl] extra is not installed
    sys.exit("learn_admission: needs the [rl] extra: pip install -e '.[rl]'")


def train(args) -> tuple[MaskablePPO, VecNormalize]:
    """MaskablePPO on ``args.envs`` copies of Admission-v0."""

    def make():
        return gym.make(envs.ADMISSION_ID, scenario=args.scenario, hint=args.hint)

    venv = VecNormalize(DummyVecEnv([make] * args.envs), gamma=args.gamma)
    venv.seed(args.train_seed)
    model = MaskablePPO(
        "MultiInputPolicy",
        venv,
        n_steps=1024,
        batch_size=256,
        gamma=args.gamma,
        ent_coef=0.01,
        seed=args.train_seed,
        verbose=0,
    )
    model.learn(total_timesteps=args.timesteps)
    venv.training = False  # evaluation: keep the normalisation statistics fixed
    return model, venv


class Learned:
    """The trained policy as an agent: normalised observation in, greedy masked action out."""

    def __init__(self, model: MaskablePPO, norm: VecNormalize) -> None:
        self.model, self.norm = model, norm

    def __call__(self, obs, info) -> int:
        batch = self.norm.normalize_obs({k: v[None] for k, v in obs.items()})
        mask = np.asarray(info["action_mask"], bool)[None]
        action, _ = self.model.predict(batch, action_masks=mask, deterministic=True)
        return int(action[0])


def evaluate(agent, seeds, hint: bool, scenario: str) -> tuple[np.ndarray, float]:
    """The profit on each of ``seeds``, and the mean share of jobs admitted (%)."""
    env = AdmissionEnv(scenario, hint=hint)
    profits, admitted = [], []
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            obs, reward, done, _, info = env.step(agent(obs, info))
            total += reward
        profits.append(total)
        admitted.append(env.result().summary["accepted_pct"][0])
    return np.array(profits), float(np.mean(admitted))


def at_least(least: int):
    """An argparse type: an integer of at least ``least``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"{value} is below {least}")
        return value

    return parse


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="profit/default")
    parser.add_argument(
        "--timesteps", type=at_least(0), default=100_000, help="training steps (jobs)"
    )
    parser.add_argument("--envs", type=at_least(1), default=4, help="training environments")
    parser.add_argument("--gamma", type=float, default=0.995)
    parser.add_argument("--train-seed", type=int, default=12345)
    parser.add_argument(  # (two at least: a spread and a standard error need two)
        "--eval-seeds", type=at_least(2), default=10, help="held-out seeds 1..N (N >= 2)"
    )
    parser.add_argument("--hint", action="store_true", help="train with the PO hint observed")
    args = parser.parse_args(argv)

    torch.set_num_threads(1)  # a small network: threads only contend (and CI-sized machines)
    start = time.perf_counter()
    model, norm = train(args)
    trained = time.perf_counter() - start
    seeds = range(1, args.eval_seeds + 1)
    agents = {
        "MaskablePPO (learned)": (Learned(model, norm), args.hint),
        "FirstProfit + PositiveOpportunity": (PositiveOpportunityAgent(), True),
        "accept all": (AcceptAllAgent(), False),
        "random": (RandomAgent(0), False),
    }
    print(f"trained {args.timesteps:,} steps in {trained:.0f} s; held-out seeds 1..{len(seeds)}")
    results = {
        name: evaluate(agent, seeds, hint, args.scenario) for name, (agent, hint) in agents.items()
    }
    reference = results["FirstProfit + PositiveOpportunity"][0]
    print(
        "| agent | mean profit | sd | admitted % | minus PO, paired: mean ± se | seeds above PO |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for name, (profits, admitted) in results.items():
        diff = profits - reference
        se = np.std(diff, ddof=1) / np.sqrt(len(diff))
        print(
            f"| {name} | {profits.mean():,.1f} | {np.std(profits, ddof=1):,.1f} | "
            f"{admitted:.1f} | {diff.mean():+,.1f} ± {se:,.1f} | {(diff > 0).sum()}/{len(diff)} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
