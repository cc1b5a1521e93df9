"""Admission-v0 under gymnasium.vector: Sync and Async vector envs, seeds propagated."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

import envs
from envs.admission import AdmissionEnv
from tests.envs.conftest import default


def make(jobs: int = 15):
    return lambda: gym.make(envs.ADMISSION_ID, scenario=default(jobs))


def roll(vec, seed: int, steps: int):
    """Observations and rewards of ``steps`` steps, every sub-env admitting on the scheduler's
    shape when allowed (the last action), else rejecting."""
    obs, infos = vec.reset(seed=seed)
    seen = [(obs["job"].copy(), np.zeros(vec.num_envs))]
    for _ in range(steps):
        masks = infos["action_mask"]
        actions = np.where(masks[:, -1] == 1, masks.shape[1] - 1, 0)
        obs, rewards, _, _, infos = vec.step(actions)
        seen.append((obs["job"].copy(), rewards.copy()))
    return seen


def test_sync_and_async_vector_envs_propagate_seeds_alike():
    runs = []
    # Async workers start from a fork server: forking a test process that runs threads may
    # deadlock. 40 steps go past the end of the first episodes (15 jobs): autoreset included.
    for vec in (
        gym.vector.SyncVectorEnv([make(), make()]),
        gym.vector.AsyncVectorEnv([make(), make()], context="forkserver"),
    ):
        try:
            runs.append(roll(vec, seed=20, steps=40))
        finally:
            vec.close()
    sync, async_ = runs
    for (o1, r1), (o2, r2) in zip(sync, async_, strict=True):
        assert np.array_equal(o1, o2) and np.array_equal(r1, r2)
    # Sub-env i is reset with seed 20 + i: its first job is the single env's on that seed.
    for i in range(2):
        single, _ = AdmissionEnv(default(15)).reset(seed=20 + i)
        assert np.array_equal(sync[0][0][i], single["job"])
    assert not np.array_equal(sync[0][0][0], sync[0][0][1])
    assert (np.array([r for _, r in sync]) != 0).any()
