import { connectionBudget } from './connection-budget.js';

describe('connectionBudget', () => {
  it('gives each worker an equal share and divides it among the change feed, the replay store, the disclosure writer and TypeORM', () => {
    expect(connectionBudget({ databasePoolSize: 10, workers: 1 })).toEqual({ process: 10, changeFeed: 1, replayStore: 2, disclosures: 1, typeorm: 6 });
    expect(connectionBudget({ databasePoolSize: 20, workers: 2 })).toEqual({ process: 10, changeFeed: 1, replayStore: 2, disclosures: 1, typeorm: 6 });
    expect(connectionBudget({ databasePoolSize: 100, workers: 1 })).toEqual({ process: 100, changeFeed: 1, replayStore: 4, disclosures: 1, typeorm: 94 });
  });

  it('leaves TypeORM two connections and the others one at the smallest share, and never exceeds the share', () => {
    expect(connectionBudget({ databasePoolSize: 5, workers: 1 })).toEqual({ process: 5, changeFeed: 1, replayStore: 1, disclosures: 1, typeorm: 2 });
    for (let size = 10; size <= 64; size += 1) {
      const budget = connectionBudget({ databasePoolSize: size, workers: 2 });
      expect(budget.changeFeed + budget.replayStore + budget.disclosures + budget.typeorm).toBe(budget.process);
      expect(budget.process * 2).toBeLessThanOrEqual(size);
      expect(budget.typeorm).toBeGreaterThanOrEqual(2);
    }
  });
});
