/** YouTube addresses for a help video code; the code is URI-encoded so a stored value cannot escape the path. */
const code = (video: string) => encodeURIComponent(video.trim());

export const thumbnailUrl = (video: string) => `https://img.youtube.com/vi/${code(video)}/mqdefault.jpg`;
export const embedUrl = (video: string) => `https://www.youtube.com/embed/${code(video)}?autoplay=1`;
export const watchUrl = (video: string) => `https://www.youtube.com/watch?v=${code(video)}`;
