import { describe, expect, it } from 'vitest';
import { IdBlocks } from '../../shared/adapters/store/id-blocks.ts';
import { freshStore } from '../support/local-dynamo.ts';

describe('DynamoStore.reserveIds', () => {
  it('reserves blocks from the same counter DynamoStore.nextId uses, so ids never collide', async () => {
    // Arrange
    const { store } = await freshStore();
    // Act
    const single = await store.nextId('subscriber');
    const block = await store.reserveIds('subscriber', 10);
    const after = await store.nextId('subscriber');
    const newsletter = await store.nextId('newsletter');
    // Assert
    expect(single).toBe(1);
    expect(block).toBe(2);
    expect(after).toBe(12);
    expect(newsletter).toBe(1);
  });

  it('refuses an empty block', async () => {
    const { store } = await freshStore();
    await expect(store.reserveIds('subscriber', 0)).rejects.toThrow(RangeError);
  });
});

describe('IdBlocks', () => {
  it('hands out distinct ids to concurrent callers with one reservation per block', async () => {
    const { store } = await freshStore();
    let reservations = 0;
    const blocks = new IdBlocks((count) => {
      reservations += 1;
      return store.reserveIds('subscriber', count);
    }, 16);
    const ids = await Promise.all(Array.from({ length: 100 }, () => blocks.next()));
    expect(new Set(ids).size).toBe(100);
    expect(Math.min(...ids)).toBe(1);
    expect(Math.max(...ids)).toBeLessThanOrEqual(112);
    expect(reservations).toBe(7);
  });
});
