import { createMemoryStorage } from "@strongroom/core";
import { runStorageContract } from "@strongroom/core/testing";

runStorageContract("memory", async () => createMemoryStorage());
